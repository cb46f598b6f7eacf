import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '@ai-assistant/host-core';
import type { AppViewService, PageRequest } from './app-views.js';
import { isRefusal, sessionCookie, sessionLifetimeMs } from './links.js';

/** The largest request body a page sends (an app's tool arguments). */
const maxBodyBytes = 1024 * 1024;
/** The host page's script, bundled at build time with the MCP Apps host bridge (no CDN). */
const hostScript = new URL('../web/app-host.js', import.meta.url);

/** An app's routes: a path (or a prefix ending in `/`) and its handler. */
export type AppViewRoutes = Record<
  string,
  (request: IncomingMessage, response: ServerResponse) => Promise<void> | void
>;

/**
 * The pages of MCP Apps views, under `/apps/`: `open` (a link: used once, it binds a session cookie
 * to this browser), `view/<key>` (the host page), `frame/<key>` (the app's HTML, with
 * the CSP the resource declares, for a sandboxed iframe), `host.js` (the page's script), and the
 * page's JSON endpoint `api/<key>` (POST, same origin only).
 */
export function appViewPages(
  views: AppViewService,
  publicUrl: string,
  logger: Logger,
): { pages: AppViewRoutes; forms: AppViewRoutes } {
  const secure = publicUrl.startsWith('https://') ? '; Secure' : '';
  const origin = new URL(publicUrl).origin;
  let script: Promise<Buffer> | undefined;
  const pages = {
    '/apps/open': async (request: IncomingMessage, response: ServerResponse) => {
      const token = new URL(request.url ?? '/', 'http://localhost').searchParams.get('t') ?? '';
      const opened = await views.links.open(token);
      if (isRefusal(opened))
        return page(response, 403, 'This link does not open', `<p>${html(opened.refused)}</p>`);
      const { session, secret } = opened;
      // A page of our own that moves on: a SameSite=Strict cookie set by a redirect that began in
      // another site (Slack) would not be sent on the redirect's next request.
      response.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
        'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
        'x-frame-options': 'DENY',
        'set-cookie': `${sessionCookie(session.key)}=${secret}; Path=/apps/; Max-Age=${sessionLifetimeMs / 1000}; HttpOnly; SameSite=Strict${secure}`,
      });
      response.end(
        `<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=/apps/view/${session.key}"><title>Opening…</title><p><a href="/apps/view/${session.key}">Open the page</a></p>`,
      );
    },
    '/apps/view/': async (request: IncomingMessage, response: ServerResponse) => {
      const key = keyOf(request, '/apps/view/');
      const session = await views.session(request, key);
      if (isRefusal(session)) return page(response, 403, 'Not your page', `<p>${html(session.refused)}</p>`);
      const record = await views.record(session.view);
      if (!record)
        return page(response, 410, 'No longer kept', '<p>This result’s page is no longer kept.</p>');
      response.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
        'content-security-policy':
          "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; frame-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        'x-frame-options': 'DENY',
      });
      response.end(shell(key, record.tool, record.server, session.user));
    },
    '/apps/frame/': async (request: IncomingMessage, response: ServerResponse) => {
      const key = keyOf(request, '/apps/frame/');
      const session = await views.session(request, key);
      const record = isRefusal(session) ? undefined : await views.record(session.view);
      if (isRefusal(session) || !record)
        return page(response, 403, 'Not your page', '<p>Open it from its link.</p>');
      const content = await views
        .viewHtml(session, record)
        .catch((error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }));
      if ('error' in content)
        return page(response, 502, 'The view could not be read', `<p>${html(content.error)}</p>`);
      response.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
        // The declared CSP, and a sandbox of its own: even opened alone, the app has no origin of ours.
        'content-security-policy': frameCsp(content.csp),
      });
      response.end(content.html);
    },
    '/apps/host.js': async (_request: IncomingMessage, response: ServerResponse) => {
      script ??= readFile(hostScript);
      const body = await script.catch(() => undefined);
      if (!body) {
        script = undefined;
        return page(
          response,
          500,
          'Not built',
          '<p>The page’s script is missing: build the assistant package (pnpm build).</p>',
        );
      }
      response.writeHead(200, {
        'content-type': 'text/javascript; charset=utf-8',
        'cache-control': 'max-age=300',
        'x-content-type-options': 'nosniff',
      });
      response.end(body);
    },
  };
  const forms = {
    '/apps/api/': async (request: IncomingMessage, response: ServerResponse) => {
      const json = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        response.end(JSON.stringify(body));
      };
      // Only the host page, from its own origin, with JSON (a cross-site form cannot send it).
      if (
        request.headers.origin !== origin ||
        !request.headers['content-type']?.startsWith('application/json')
      )
        return json(403, { error: 'Requests come from the assistant’s own page only.' });
      const session = await views.session(request, keyOf(request, '/apps/api/'));
      if (isRefusal(session)) return json(403, { error: session.refused });
      const body = await readJson(request);
      if (!body || typeof body !== 'object' || typeof (body as { method?: unknown }).method !== 'string')
        return json(400, {
          error: `The request must be JSON {method, params} of at most ${maxBodyBytes} bytes.`,
        });
      try {
        return json(200, await views.handle(session, body as PageRequest));
      } catch (error) {
        logger.warn({ error: String(error) }, 'an App view request failed');
        return json(200, { error: error instanceof Error ? error.message : 'The request failed.' });
      }
    },
  };
  return { pages, forms };
}

/** The page's key from its path (`/apps/view/<key>`). */
function keyOf(request: IncomingMessage, prefix: string): string {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  const key = path.slice(prefix.length);
  return /^[\w-]{22}$/.test(key) ? key : '';
}

/** An origin list of a resource's CSP, each checked (nothing that could end a directive). */
function origins(list: unknown): string {
  if (!Array.isArray(list)) return '';
  return list
    .filter(
      (entry): entry is string =>
        typeof entry === 'string' && /^(https?|wss?):\/\/[\w.*-]+(:\d+)?\/?$/.test(entry),
    )
    .join(' ');
}

/**
 * The CSP of an app's HTML, from its resource's `_meta.ui.csp` (MCP Apps): no network unless
 * `connectDomains`, no outside scripts, styles, images or fonts unless `resourceDomains`, no frames
 * unless `frameDomains`; inline code (apps are single files); sandboxed, inside the host page only.
 */
export function frameCsp(csp: unknown): string {
  const declared = (csp ?? {}) as Record<string, unknown>;
  const resources = origins(declared.resourceDomains);
  const connect = origins(declared.connectDomains);
  const frames = origins(declared.frameDomains);
  const base = origins(declared.baseUriDomains);
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' 'wasm-unsafe-eval' blob: data: ${resources}`,
    `style-src 'unsafe-inline' blob: data: ${resources}`,
    `img-src data: blob: ${resources}`,
    `font-src data: blob: ${resources}`,
    `media-src data: blob: ${resources}`,
    `worker-src blob: data: ${resources}`,
    `connect-src ${connect || "'none'"}`,
    `frame-src ${frames || "'none'"}`,
    `base-uri ${base || "'none'"}`,
    "object-src 'none'",
    "form-action 'none'",
    "frame-ancestors 'self'",
    'sandbox allow-scripts',
  ]
    .map((directive) => directive.trim())
    .join('; ');
}

/** The host page: who it is for, where the app goes, the script that runs the bridge. */
function shell(key: string, tool: string, server: string, user: string): string {
  return `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${html(tool)} · ai-assistant</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;background:#f6f6f7;color:#1d1c1d}
header{padding:10px 16px;background:#3f0e40;color:#fff}
header small{opacity:.8;margin-left:8px}
main{padding:12px 16px}
#notices>div{background:#fff;border:1px solid #ddd;border-left:4px solid #e8912d;border-radius:6px;padding:10px 12px;margin:0 0 10px}
#notices pre{white-space:pre-wrap;background:#f4f4f4;padding:6px;border-radius:4px;max-height:200px;overflow:auto}
#notices button{margin-right:8px;padding:4px 12px}
iframe{width:100%;min-height:320px;border:1px solid #ddd;border-radius:8px;background:#fff}
</style>
<header><strong>${html(tool)}</strong><small>${html(server)} · for ${html(user)}</small></header>
<main><p id="status">Loading…</p><div id="notices"></div><div id="app"></div></main>
<script src="/apps/host.js" data-key="${html(key)}"></script>
</html>`;
}

/** A JSON body of at most {@link maxBodyBytes}; undefined when larger or not JSON. */
function readJson(request: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        request.destroy();
        resolve(undefined);
      } else chunks.push(chunk);
    });
    request.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        resolve(undefined);
      }
    });
    request.on('error', () => resolve(undefined));
  });
}

/** Text made safe inside HTML. */
const html = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** A small page of its own: no scripts, no frames. */
function page(response: ServerResponse, status: number, title: string, body: string): void {
  response.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'content-security-policy': "default-src 'none'; form-action 'none'; frame-ancestors 'none'",
    'x-frame-options': 'DENY',
  });
  response.end(
    `<!doctype html><meta charset="utf-8"><title>${html(title)}</title><h1>${html(title)}</h1>${body}`,
  );
}
