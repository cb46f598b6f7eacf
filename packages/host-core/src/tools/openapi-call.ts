import type { Dispatcher } from 'undici';
import { type AddressAllowlist, checkAddress } from '../net/address-guard.js';
import type { OpenApiOperation } from './openapi-tools.js';

/** Default cap on an HTTP response body read for a tool: a small multiple of the result budget. */
export const defaultMaxResponseBytes = 4 * 1024 * 1024;

/** Reads a body as UTF-8 up to `limit` bytes; undefined (and the body destroyed) when it is larger. */
async function readCapped(body: AsyncIterable<Buffer> & { destroy(): void }, limit: number) {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The outcome of one HTTP call, as tool result text. */
export interface OpenApiCallResult {
  text: string;
  isError: boolean;
}

/** Builds and sends the request for one operation with undici; returns status and body as text. */
export async function callOperation(
  operation: OpenApiOperation,
  args: Record<string, unknown>,
  options: {
    baseUrl: string;
    headers: Record<string, string>;
    query: Record<string, string>;
    timeoutMs: number;
    signal?: AbortSignal;
    /** Largest response body read; past it the request is aborted (default {@link defaultMaxResponseBytes}). */
    maxResponseBytes?: number;
    /** A workspace's server: the base URL checked, and each connection dialled through this dispatcher. */
    guard?: { allow: AddressAllowlist; dispatcher: Dispatcher };
  },
): Promise<OpenApiCallResult> {
  let refused: string | undefined;
  const path = operation.path.replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    const parameter = operation.parameters.find(
      (candidate) => candidate.in === 'path' && candidate.name === name,
    );
    const value = parameter ? args[parameter.argument] : undefined;
    if (value === undefined) throw new Error(`missing path parameter "${name}"`);
    // encodeURIComponent keeps "." and "..", which URL parsing then resolves as dot segments.
    if (String(value) === '.' || String(value) === '..')
      refused ??= `path parameter "${name}" may not be ".", ".." or contain "/"`;
    return encodeURIComponent(String(value));
  });
  if (refused) return { text: `refused: ${refused}`, isError: true };
  const base = new URL(options.baseUrl);
  const url = new URL(`${options.baseUrl.replace(/\/+$/, '')}${path}`);
  const basePath = base.pathname.replace(/\/+$/, '');
  if (url.origin !== base.origin || (url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`))) {
    return {
      text: `refused: the request would leave the API's base path (${basePath || '/'})`,
      isError: true,
    };
  }
  for (const [name, value] of Object.entries(options.query)) url.searchParams.set(name, value);
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  for (const parameter of operation.parameters) {
    const value = args[parameter.argument];
    if (value === undefined || parameter.in === 'path') continue;
    if (parameter.in === 'header') headers[parameter.name] = String(value);
    else
      for (const item of Array.isArray(value) ? value : [value])
        url.searchParams.append(parameter.name, String(item));
  }
  let body: string | undefined;
  if (operation.body?.kind === 'whole' && args[operation.body.argument] !== undefined) {
    body = JSON.stringify(args[operation.body.argument]);
  } else if (operation.body?.kind === 'properties') {
    const fields = operation.body.fields.filter((field) => args[field.argument] !== undefined);
    if (fields.length > 0)
      body = JSON.stringify(Object.fromEntries(fields.map((field) => [field.name, args[field.argument]])));
  }
  if (body !== undefined) headers['content-type'] = 'application/json';
  // undici is loaded only when a config has an OpenAPI server and one of its tools is called.
  const { request } = await import('undici');
  if (options.guard) checkAddress(url, options.guard.allow);
  const response = await request(url, {
    ...(options.guard ? { dispatcher: options.guard.dispatcher } : {}),
    method: operation.method as 'GET',
    headers,
    body,
    signal: options.signal,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  const limit = options.maxResponseBytes ?? defaultMaxResponseBytes;
  const raw = await readCapped(response.body, limit);
  if (raw === undefined) {
    return {
      text: `HTTP ${response.statusCode} from ${operation.method} ${operation.path}: the response is larger than ${limit} bytes (max_response_bytes); it was not read`,
      isError: true,
    };
  }
  let shown = raw;
  try {
    shown = raw ? JSON.stringify(JSON.parse(raw), null, 2) : '(empty body)';
  } catch {
    // not JSON: shown as it is
  }
  const ok = response.statusCode >= 200 && response.statusCode < 300;
  return ok
    ? { text: `HTTP ${response.statusCode}\n${shown}`, isError: false }
    : {
        text: `HTTP ${response.statusCode} from ${operation.method} ${operation.path}: ${shown.slice(0, 500)}`,
        isError: true,
      };
}
