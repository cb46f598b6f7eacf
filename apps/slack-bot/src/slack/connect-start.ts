import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PersonRef } from '@ai-assistant/assistant';
import type { Logger } from '@ai-assistant/host-core';
import type { Store } from '@ai-assistant/store';

/** What a Connect link starts: one person's sign-in to one server, at the authorization server's URL. */
interface StartRecord {
  state: string;
  url: string;
  workspace: string;
  user: string;
  server: string;
  expiresAt: number;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');
/** The cookie that binds a flow to the browser that confirmed it (one per flow: a person may run two). */
const cookieName = (state: string) => `oauth_flow_${sha256(state).slice(0, 16)}`;
/** The largest confirmation form read (a token field). */
const maxFormBytes = 4096;

/**
 * Connect links that lead to a page of the bot, not straight to the authorization server: the page
 * says whose Slack account (user and workspace) is being connected to which server, and only a POST
 * from it (same origin) starts the sign-in, once, within the flow's 10 minutes. That POST sets a
 * cookie the callback must see, so a sign-in completes only in the browser that confirmed it.
 * Records live in the store: any replica answers.
 */
export class ConnectStarts {
  constructor(
    private readonly sealed: Store['sealed'],
    /** The bot's public URL (PUBLIC_URL): the page's address and the only origin a confirmation comes from. */
    private readonly publicUrl: string | undefined,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The Connect link for a flow just begun: the bot's start page with a single-use token. */
  async link(person: PersonRef, server: string, started: { url: string; expiresAt: Date }): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const record: StartRecord = {
      state: new URL(started.url).searchParams.get('state') ?? '',
      url: started.url,
      workspace: person.workspace,
      user: person.user,
      server,
      expiresAt: started.expiresAt.getTime(),
    };
    await this.put('oauth-start', sha256(token), person.workspace, JSON.stringify(record));
    return `${this.publicUrl ?? ''}/oauth/start?t=${token}`;
  }

  /** `GET /oauth/start?t=…`: whose account is being connected, and a button that confirms (POST). */
  startPage() {
    return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
      const token = new URL(request.url ?? '/', 'http://localhost').searchParams.get('t') ?? '';
      const record = await this.read(token);
      if (!record) return this.stale(response);
      const authorizationOrigin = new URL(record.url).origin;
      page(
        response,
        200,
        `Connect ${record.server} to your Slack account`,
        `<p>You are connecting <strong>${html(record.server)}</strong> to the Slack account <strong>${html(record.user)}</strong> in the workspace <strong>${html(record.workspace)}</strong>. Whatever account you sign in with next is used whenever that Slack account asks the assistant.</p>
<p>If that is not your Slack account, close this page: the link was meant for someone else, who can ask for a new one.</p>
<form method="post" action="/oauth/start"><input type="hidden" name="t" value="${html(token)}"><button type="submit">Connect ${html(record.server)} as ${html(record.user)}</button></form>
<p>The link works once, until ${html(new Date(record.expiresAt).toISOString().slice(11, 16))} UTC.</p>`,
        // The confirmation posts here, then goes on to the authorization server.
        `form-action 'self' ${authorizationOrigin}`,
      );
    };
  }

  /**
   * `POST /oauth/start`: the person confirmed. The link is used up, the browser gets the flow's
   * cookie, and is sent on to the authorization server. Only a form of this bot's own origin counts.
   */
  confirm(logger: Logger) {
    return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
      const origin = request.headers.origin ?? refererOrigin(request.headers.referer);
      if (!this.publicUrl || origin !== new URL(this.publicUrl).origin) {
        logger.warn(
          { origin: origin?.slice(0, 100) },
          'a Connect confirmation from another origin was refused',
        );
        return page(
          response,
          403,
          'Not started',
          '<p>This confirmation did not come from the assistant’s own page. Open the Connect link from Slack again.</p>',
        );
      }
      const token = new URLSearchParams(await readForm(request)).get('t') ?? '';
      const record = await this.read(token);
      // Single use: of two confirmations of one link, only the one that deletes it goes on.
      if (!record || !(await this.delete('oauth-start', sha256(token)))) return this.stale(response);
      const secret = randomBytes(32).toString('base64url');
      await this.put('oauth-binding', sha256(record.state), record.workspace, sha256(secret));
      const secure = this.publicUrl.startsWith('https://') ? '; Secure' : '';
      response.writeHead(303, {
        location: record.url,
        'set-cookie': `${cookieName(record.state)}=${secret}; Path=/oauth/callback; Max-Age=${Math.max(
          1,
          Math.floor((record.expiresAt - this.now().getTime()) / 1000),
        )}; HttpOnly; SameSite=Lax${secure}`,
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
      });
      response.end();
    };
  }

  /**
   * Whether a redirect back (its `state`) arrives in the browser that confirmed the flow: its cookie
   * matches the flow's. The binding is forgotten once checked and matched.
   */
  async confirmedHere(request: IncomingMessage, state: string): Promise<boolean> {
    if (!state) return false;
    const expected = await this.get('oauth-binding', sha256(state));
    const presented = cookie(request.headers.cookie, cookieName(state));
    if (!expected || !presented) return false;
    const [a, b] = [Buffer.from(expected), Buffer.from(sha256(presented))];
    if (a.length !== b.length || !timingSafeEqual(a, b)) return false;
    await this.delete('oauth-binding', sha256(state));
    return true;
  }

  /** The Set-Cookie that ends a flow's cookie. */
  static clearCookie(state: string): string {
    return `${cookieName(state)}=; Path=/oauth/callback; Max-Age=0; HttpOnly; SameSite=Lax`;
  }

  private async read(token: string): Promise<StartRecord | undefined> {
    if (!token || token.length > 100) return undefined;
    const raw = await this.get('oauth-start', sha256(token));
    const record = raw ? (JSON.parse(raw) as StartRecord) : undefined;
    return record && record.expiresAt > this.now().getTime() ? record : undefined;
  }

  private stale(response: ServerResponse): void {
    page(
      response,
      410,
      'This Connect link is used or expired',
      '<p>A Connect link works once, for 10 minutes, and only for the person it was sent to. Ask the assistant again in Slack for a new one.</p>',
    );
  }

  private async put(kind: string, id: string, workspace: string, value: string): Promise<void> {
    await this.sealed.put(kind, id, { workspace }, value);
  }

  private async get(kind: string, id: string): Promise<string | undefined> {
    return this.sealed.get(kind, id);
  }

  private async delete(kind: string, id: string): Promise<boolean> {
    return this.sealed.delete(kind, id);
  }
}

/** Text made safe inside HTML. */
export const html = (text: string) =>
  text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** A small page of the bot: no scripts, no frames (the confirmation cannot be clicked through a frame). */
export function page(
  response: ServerResponse,
  status: number,
  title: string,
  body: string,
  formAction = "'none'",
): void {
  response.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'content-security-policy': `default-src 'none'; form-action ${formAction}; frame-ancestors 'none'`,
    'x-frame-options': 'DENY',
  });
  response.end(
    `<!doctype html><meta charset="utf-8"><title>${html(title)}</title><h1>${html(title)}</h1>${body}`,
  );
}

function refererOrigin(referer: string | undefined): string | undefined {
  try {
    return referer ? new URL(referer).origin : undefined;
  } catch {
    return undefined;
  }
}

function cookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** A urlencoded form body, at most {@link maxFormBytes}. */
function readForm(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
      if (body.length > maxFormBytes) {
        request.destroy();
        resolve('');
      }
    });
    request.on('end', () => resolve(body));
    request.on('error', () => resolve(''));
  });
}
