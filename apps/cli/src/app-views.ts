import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  type AppViewRecords,
  type AppViewRoutes,
  AppViewService,
  appViewPages,
  linkLifetimeMs,
  type People,
  type PersonRef,
  type ToolView,
} from '@ai-assistant/assistant';
import type { Logger } from '@ai-assistant/host-core';
import type { AuditEntry } from '@ai-assistant/store';

/** Records kept in memory at most (views, links, sessions, held answers): the oldest go first. */
const maxRecords = 1000;

/**
 * Sealed records in this process's memory: the terminal's views, links and sessions end with the
 * chat, and nothing of them is written to disk. The link key is never evicted.
 */
export function memoryRecords(): AppViewRecords {
  const records = new Map<string, string>();
  const key = (kind: string, id: string) => `${kind}\u0000${id}`;
  return {
    get: async (kind, id) => records.get(key(kind, id)),
    put: async (kind, id, _owner, value) => {
      records.set(key(kind, id), value);
      for (const oldest of records.keys()) {
        if (records.size <= maxRecords) break;
        if (!oldest.startsWith('app-link-key\u0000')) records.delete(oldest);
      }
    },
    delete: async (kind, id) => records.delete(key(kind, id)),
  };
}

export interface TerminalViewsOptions {
  people: Pick<People, 'viewFor'>;
  /** The terminal's one person. */
  person: PersonRef;
  /** The audit trail (the chat's store), for the calls the page makes. */
  audit?: (entry: AuditEntry) => Promise<void>;
  logger: Logger;
  /** A message an app's page sent, confirmed there by the person: asked as their next question. */
  message: (text: string, tool: string) => void;
}

/**
 * MCP Apps views in the terminal chat: a result with a view gets a local link to the same page the
 * Slack app serves, from an HTTP server bound to 127.0.0.1 only (a free port, started on first need).
 * The link works once and starts an HttpOnly, SameSite=Strict cookie session of the browser that
 * opened it; the page's requests run through the person's view, writes asking in the page.
 */
export class TerminalViews {
  private readonly service: AppViewService;
  private listening: Promise<{ server: Server; origin: string }> | undefined;

  constructor(private readonly options: TerminalViewsOptions) {
    this.service = new AppViewService({
      sealed: memoryRecords(),
      ...(options.audit ? { audit: { record: options.audit } } : {}),
      people: options.people,
      logger: options.logger,
      again: 'Ask again in the terminal chat for a new link',
      message: {
        prompt: 'The page wants to ask this in the terminal chat, as your next question:',
        button: 'Ask',
        deliver: async (_session, record, text) => {
          options.message(text, record.tool);
          return {};
        },
      },
    });
  }

  /** A link to a result's page, for the terminal's person; undefined when it could not be kept. */
  async linkFor(view: ToolView): Promise<string | undefined> {
    const { person } = this.options;
    const kept = await this.service.keep({ workspace: person.workspace, asker: person.user }, view);
    if (!kept) return undefined;
    const { origin } = await this.listen();
    return `${origin}/apps/open?t=${await this.service.links.issue(kept.id, person)}`;
  }

  /** Stops the server, dropping open connections. */
  async close(): Promise<void> {
    const listening = await this.listening?.catch(() => undefined);
    if (!listening) return;
    listening.server.closeAllConnections();
    await new Promise<void>((resolve) => listening.server.close(() => resolve()));
  }

  /** The server, started on first need: loopback only, a port the system chooses. */
  private listen(): Promise<{ server: Server; origin: string }> {
    this.listening ??= new Promise((resolve, reject) => {
      let routes: { pages: AppViewRoutes; forms: AppViewRoutes } | undefined;
      let host = '';
      const server = createServer((request, response) => {
        // Another name for this address (a page of some site whose name resolves to 127.0.0.1) is refused.
        if (!routes || request.headers.host !== host) {
          response.writeHead(421, { 'content-type': 'text/plain; charset=utf-8' });
          response.end(`This server answers at ${host} only.`);
          return;
        }
        void route(routes, request, response).catch((error: unknown) => {
          this.options.logger.warn({ error: String(error) }, 'an App view page failed');
          if (!response.headersSent) response.writeHead(500);
          response.end();
        });
      });
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        const port = typeof address === 'object' && address ? address.port : 0;
        host = `127.0.0.1:${port}`;
        const origin = `http://${host}`;
        routes = appViewPages(this.service, origin, this.options.logger);
        server.off('error', reject);
        server.on('error', (error) =>
          this.options.logger.warn({ error: String(error) }, 'the App views server failed'),
        );
        resolve({ server, origin });
      });
    });
    this.listening.catch(() => {
      this.listening = undefined;
    });
    return this.listening;
  }
}

/** The route of a request: its exact path, else the longest prefix ending in `/`; else 404. */
async function route(
  routes: { pages: AppViewRoutes; forms: AppViewRoutes },
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const table = request.method === 'POST' ? routes.forms : request.method === 'GET' ? routes.pages : {};
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  const handler =
    table[path] ??
    Object.entries(table)
      .filter(([prefix]) => prefix.endsWith('/') && path.startsWith(prefix))
      .sort(([a], [b]) => b.length - a.length)[0]?.[1];
  if (handler) return handler(request, response);
  response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
  response.end('Not found. Pages here open from the links the terminal chat prints.');
}

/** What the terminal prints for a result with a view. */
export function viewLine(view: ToolView, url: string | undefined): string {
  const label = `${view.server} › ${view.tool}`;
  if (!url) return `  🖼️ ${label} has a view, which could not be kept.\n`;
  return `  🖼️ ${label} has a view: ${url}\n     (opens once, in one browser, for ${linkLifetimeMs / 60_000} minutes)\n`;
}
