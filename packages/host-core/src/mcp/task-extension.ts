import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type Client,
  type JSONRPCMessage,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  type Transport,
} from '@modelcontextprotocol/client';
import { clientCapabilities } from './server-requests.js';

/** The tasks extension of MCP 2026-07-28 (its own specification, revision 2026-07-28). */
export const tasksExtension = 'io.modelcontextprotocol/tasks';

/**
 * Whether a connection's server runs tool calls as tasks of the extension: it speaks 2026-07-28 and
 * its `server/discover` capabilities name the extension (an empty object: no settings are defined).
 */
export function speaksTaskExtension(client: Client | undefined): boolean {
  if (client?.getProtocolEra() !== 'modern') return false;
  const capabilities = client.getServerCapabilities() as { extensions?: Record<string, unknown> } | undefined;
  const declared = capabilities?.extensions?.[tasksExtension];
  return typeof declared === 'object' && declared !== null && !Array.isArray(declared);
}

/** How long the answer to an abandoned `tools/call` is still waited for (to cancel its task). */
const lateResultMs = 60_000;

type Waiting = { resolve: (result: Record<string, unknown>) => void; reject: (error: unknown) => void };

/**
 * The requests of the tasks extension on one 2026-07-28 connection: a `tools/call` that may be answered
 * `resultType: "task"`, and `tasks/get`, `tasks/update`, `tasks/cancel`. The SDK v2's codecs refuse a
 * task result (`UnsupportedResultType`) and know none of these methods, so they go on the connection's
 * own transport, past the SDK: the same process or endpoint, the same fetch (the person's tokens, the
 * address guard, the response cap), the same headers (the transport derives `MCP-Protocol-Version`,
 * `Mcp-Method` and `Mcp-Name` from the body, so a task's id routes `tasks/*`). Each request carries the
 * 2026 `_meta` envelope, its capabilities declaring the extension (the SDK's own requests never do: a
 * server may answer a task only to a request that declared it). Their ids are strings of their own,
 * and their answers are taken off the transport before the SDK sees them.
 */
export class ExtensionRequests {
  private readonly waiting = new Map<string, Waiting>();
  private next = 1;
  private readonly envelope: Record<string, unknown>;
  private closedBy: Error | undefined;

  constructor(
    private readonly transport: Transport,
    client: Client,
    clientInfo: { name: string; version: string },
  ) {
    // The 2025 revision's `tasks` capability has no place in a 2026 envelope (the SDK drops it too).
    const { tasks: _legacyTasks, ...capabilities } = clientCapabilities;
    this.envelope = {
      [PROTOCOL_VERSION_META_KEY]: client.getNegotiatedProtocolVersion(),
      [CLIENT_INFO_META_KEY]: clientInfo,
      [CLIENT_CAPABILITIES_META_KEY]: { ...capabilities, extensions: { [tasksExtension]: {} } },
    };
    const inner = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const id = (message as { id?: unknown }).id;
      const waiting = typeof id === 'string' && !('method' in message) ? this.waiting.get(id) : undefined;
      if (!waiting) return inner?.(message, extra);
      this.waiting.delete(id as string);
      const error = (message as { error?: { code: number; message: string; data?: unknown } }).error;
      if (error) waiting.reject(new ProtocolError(error.code, error.message, error.data));
      else waiting.resolve(((message as { result?: unknown }).result ?? {}) as Record<string, unknown>);
    };
    const closed = transport.onclose;
    transport.onclose = () => {
      this.close(new Error('the connection closed'));
      closed?.();
    };
  }

  /**
   * Sends one request and resolves with its raw result (a JSON-RPC error rejects as a ProtocolError).
   * `late`: what becomes of a result that arrives after `signal` aborted (a task created meanwhile is
   * still the host's to cancel): the request is then left to finish rather than cut off, for a while.
   */
  request(
    method: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
    late?: (result: Record<string, unknown>) => void,
    headers?: Record<string, string>,
  ): Promise<Record<string, unknown>> {
    if (this.closedBy) return Promise.reject(this.closedBy);
    signal?.throwIfAborted();
    const id = `tasks-extension-${this.next++}`;
    const meta = (params._meta as Record<string, unknown> | undefined) ?? {};
    const message = {
      jsonrpc: '2.0' as const,
      id,
      method,
      params: { ...params, _meta: { ...meta, ...this.envelope } },
    };
    const perRequestStream =
      (this.transport as { hasPerRequestStream?: boolean }).hasPerRequestStream === true;
    // Over HTTP the request's own stream ends when it is abandoned: through a controller of its own, so
    // the caller's signal (which may serve another request later) is never tied to the transport's.
    const stream = signal && !late && perRequestStream ? new AbortController() : undefined;
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const abandon = () => {
        stream?.abort(signal?.reason);
        if (!this.waiting.has(id)) return;
        reject(signal?.reason);
        if (late) {
          this.waiting.set(id, { resolve: late, reject: () => undefined });
          setTimeout(() => this.waiting.delete(id), lateResultMs).unref();
          return;
        }
        this.waiting.delete(id);
        // Over HTTP the request's own stream ends with the fetch the signal aborts; elsewhere the
        // server hears that the request was cancelled.
        if (!perRequestStream)
          void this.transport
            .send({
              jsonrpc: '2.0',
              method: 'notifications/cancelled',
              params: { requestId: id, reason: 'cancelled by the host', _meta: { ...this.envelope } },
            } as JSONRPCMessage)
            .catch(() => undefined);
      };
      signal?.addEventListener('abort', abandon, { once: true });
      this.waiting.set(id, {
        resolve: (result) => {
          signal?.removeEventListener('abort', abandon);
          resolve(result);
        },
        reject: (error) => {
          signal?.removeEventListener('abort', abandon);
          reject(error);
        },
      });
      this.transport
        .send(message as JSONRPCMessage, {
          ...(stream ? { requestSignal: stream.signal } : {}),
          ...(headers ? { headers } : {}),
        })
        .catch((error: unknown) => {
          const waiting = this.waiting.get(id);
          if (!waiting) return;
          this.waiting.delete(id);
          waiting.reject(error);
        });
    });
  }

  /** Ends every request still waiting (the connection is closing or closed). */
  close(reason: Error): void {
    this.closedBy ??= reason;
    for (const waiting of this.waiting.values()) waiting.reject(reason);
    this.waiting.clear();
  }
}

/** A server's answer the host cannot follow: not a shape the extension (or the core protocol) defines. */
export class InvalidResult extends ProtocolError {}

/** An {@link InvalidResult} for `method`. */
export function invalidResult(method: string, detail: string): InvalidResult {
  return new InvalidResult(ProtocolErrorCode.InternalError, `invalid result for ${method}: ${detail}`);
}

/**
 * The `Mcp-Param-*` headers of a `tools/call` over Streamable HTTP (MCP 2026-07-28): each argument the
 * tool's input schema marks with `x-mcp-header` (reached through `properties` alone) is mirrored in a
 * header of that name, as the SDK's own `callTool` does. Strings as they are, numbers in decimal,
 * booleans as `true`/`false`; a value that is not a plain ASCII field value goes as `=?base64?…?=`.
 */
export function paramHeaders(
  schema: unknown,
  args: Record<string, unknown>,
): Record<string, string> | undefined {
  let headers: Record<string, string> | undefined;
  const visit = (node: unknown, value: unknown) => {
    const properties = (node as { properties?: Record<string, unknown> } | undefined)?.properties;
    if (!properties || typeof properties !== 'object') return;
    for (const [key, property] of Object.entries(properties)) {
      const at = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
      const name = (property as { 'x-mcp-header'?: unknown } | undefined)?.['x-mcp-header'];
      const text = headerText(at);
      if (typeof name === 'string' && httpToken.test(name) && text !== undefined) {
        headers ??= {};
        headers[`Mcp-Param-${name}`] = fieldValue(text);
      }
      visit(property, at);
    }
  };
  visit(schema, args);
  return headers;
}

const httpToken = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function headerText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (!Number.isInteger(value) || Number.isSafeInteger(value))
  )
    return String(value);
  return undefined;
}

function fieldValue(text: string): string {
  const plain =
    text.length > 0 &&
    text === text.trim() &&
    !(text.startsWith('=?base64?') && text.endsWith('?=')) &&
    /^[\t\x20-\x7e]*$/.test(text);
  return plain ? text : `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}
