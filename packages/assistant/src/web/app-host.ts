// The host page of an MCP Apps view, in the person's browser: the app's HTML runs in a sandboxed
// iframe (scripts only: no origin of ours, no cookies), and speaks to this page over postMessage
// through the ext-apps host bridge. Everything it asks goes to the host's JSON endpoint, which answers
// through the person's own view of MCP; writes and messages wait for the person's answer here.
import {
  AppBridge,
  buildAllowAttribute,
  PostMessageTransport,
} from '@modelcontextprotocol/ext-apps/app-bridge';

interface Init {
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
  user: string;
  asker: string;
  permissions?: Record<string, unknown>;
  /** Where the app's messages go, once the person confirms them; absent: nowhere. */
  message?: { prompt: string; button: string };
  result?: { content: unknown[]; structuredContent?: Record<string, unknown>; isError?: boolean };
  refusal?: string;
}

const script = document.currentScript as HTMLScriptElement;
const key = script.dataset.key ?? '';
const status = document.getElementById('status') as HTMLElement;
const notices = document.getElementById('notices') as HTMLElement;
const holder = document.getElementById('app') as HTMLElement;

/** One request to the assistant, as this page (its session cookie, its origin). */
async function api<T = Record<string, unknown>>(method: string, params?: unknown): Promise<T> {
  const response = await fetch(`/apps/api/${key}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    credentials: 'same-origin',
    body: JSON.stringify({ method, params }),
  });
  const body = (await response.json()) as T & { error?: string };
  if (!response.ok || body.error) throw new Error(body.error ?? `the assistant answered ${response.status}`);
  return body;
}

/** A notice with buttons; resolves with the person's choice. */
function ask(title: string, details: string, yes: string, no: string): Promise<boolean> {
  return new Promise((resolve) => {
    const box = document.createElement('div');
    box.setAttribute('role', 'alertdialog');
    const heading = document.createElement('p');
    heading.textContent = title;
    const shown = document.createElement('pre');
    shown.textContent = details;
    box.append(heading, shown);
    for (const [label, answer] of [
      [yes, true],
      [no, false],
    ] as const) {
      const button = document.createElement('button');
      button.textContent = label;
      button.addEventListener('click', () => {
        box.remove();
        resolve(answer);
      });
      box.append(button);
    }
    notices.append(box);
  });
}

/** A plain notice (a link the app asked to open: shown, never followed by itself). */
function tell(text: string, link?: string): void {
  const box = document.createElement('div');
  box.setAttribute('role', 'status');
  box.textContent = text;
  if (link) {
    const anchor = document.createElement('a');
    anchor.href = link;
    anchor.textContent = link;
    anchor.rel = 'noopener noreferrer';
    anchor.target = '_blank';
    box.append(document.createElement('br'), anchor);
  }
  notices.append(box);
}

async function start(): Promise<void> {
  const init = await api<Init>('init');
  if (init.refusal || !init.result) {
    status.textContent = init.refusal ?? 'This view has no result to show.';
    document.body.dataset.state = 'refused';
    return;
  }
  status.textContent =
    init.user === init.asker ? 'Your result.' : 'Shown with your own access (the tool ran again for you).';
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.setAttribute('title', `${init.tool} (${init.server})`);
  const allow = buildAllowAttribute(init.permissions as never);
  if (allow) frame.setAttribute('allow', allow);
  holder.append(frame);
  const window_ = frame.contentWindow as Window;
  const bridge = new AppBridge(
    null,
    { name: 'ai-assistant', version: '1' },
    { openLinks: {}, serverTools: {}, serverResources: {}, logging: {}, message: { text: {} } },
    {
      hostContext: {
        theme: matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light',
        displayMode: 'inline',
        availableDisplayModes: ['inline'],
        locale: navigator.language,
        platform: 'web',
      },
    },
  );
  bridge.oncalltool = async (params) => {
    const answer = await api<{ result?: unknown; confirm?: string; tool?: string; arguments?: unknown }>(
      'tools/call',
      params,
    );
    if (answer.confirm) {
      const allowed = await ask(
        `The page asks to run ${answer.tool} on ${init.server} as you. Allow it?`,
        JSON.stringify(answer.arguments, null, 2),
        'Allow',
        'Refuse',
      );
      return (await api<{ result: never }>('decide', { id: answer.confirm, allow: allowed })).result;
    }
    return answer.result as never;
  };
  bridge.onreadresource = async (params) => (await api<{ result: never }>('resources/read', params)).result;
  bridge.onlistresources = async () => (await api<{ result: never }>('resources/list')).result;
  bridge.onmessage = async (params) => {
    const text = params.content
      .map((block) => (block.type === 'text' ? block.text : ''))
      .filter(Boolean)
      .join('\n');
    if (!init.message) {
      tell(`The page sent a message, which goes nowhere here: ${text}`);
      return { isError: true };
    }
    const held = await api<{ confirm: string; text: string }>('ui/message', { text });
    const allowed = await ask(init.message.prompt, held.text, init.message.button, 'Cancel');
    await api('decide', { id: held.confirm, allow: allowed });
    return allowed ? {} : { isError: true };
  };
  bridge.onopenlink = async ({ url }) => {
    tell('The page asks to open this link (open it yourself if you trust it):', url);
    return {};
  };
  bridge.onrequestdisplaymode = async () => ({ mode: 'inline' });
  bridge.onsizechange = ({ height }) => {
    if (typeof height === 'number' && height > 0)
      frame.style.height = `${Math.min(Math.ceil(height), 5000)}px`;
  };
  bridge.onloggingmessage = () => {};
  bridge.oninitialized = () => {
    void (async () => {
      await bridge.sendToolInput({ arguments: init.arguments });
      await bridge.sendToolResult(init.result as never);
      document.body.dataset.state = 'ready';
    })();
  };
  await bridge.connect(new PostMessageTransport(window_, window_));
  // The frame's address is set once the bridge listens, so the app's first message is heard.
  frame.src = `/apps/frame/${key}`;
}

start().catch((error: unknown) => {
  status.textContent = `The page could not start: ${error instanceof Error ? error.message : String(error)}`;
  document.body.dataset.state = 'failed';
});
