import { HostError } from '@ai-assistant/chat-types';
import {
  type AddressAllowlist,
  type ApprovalPolicy,
  capResponse,
  checkAddress,
  compileOpenApi,
  guardedFetch,
  OpenApiSpecError,
  ResponseTooLargeError,
  type ServerConfig,
} from '@ai-assistant/host-core';

/**
 * How a server a workspace added authenticates: `none`; `person`: each person's own token (they
 * connect it, as with the operator's per-person servers); `oauth`: each person signs in with MCP
 * authorization (remote MCP servers); `secret`: one secret of the workspace's, stored encrypted and
 * sent for everyone.
 */
export type WorkspaceServerAuth = 'none' | 'person' | 'oauth' | 'secret';

/**
 * A server a workspace's admins added (seed 002's per-tenant servers): a remote MCP server or a REST
 * API described by an OpenAPI document. Never a command: running one is the operator's decision.
 */
export interface WorkspaceServerSpec {
  name: string;
  kind: 'mcp' | 'openapi';
  /** MCP: the server's endpoint (Streamable HTTP). OpenAPI: the API's base URL (default: the document's first server). */
  url: string;
  auth: WorkspaceServerAuth;
  /** The header the token or secret goes in (default `Authorization`, as `Bearer <value>`). */
  header?: string;
  /** `auth: secret`: the workspace's secret. */
  secret?: string;
  /** OpenAPI: the document as JSON text (pasted, or read from its URL when added). */
  document?: string;
  /** Which tools need a person's approval (default `writes`). */
  approval?: 'auto' | 'writes' | 'always';
  description?: string;
  /** The tools its Test listed when it was added (shown before anyone connects). */
  tools?: string[];
  addedBy: string;
  addedAt: string;
}

/** A field of a workspace server that cannot be used, named with the fix. */
export class WorkspaceServerError extends HostError {
  override name = 'WorkspaceServerError';
  constructor(
    readonly field: 'name' | 'url' | 'auth' | 'header' | 'secret' | 'document' | 'approval',
    message: string,
  ) {
    super('WORKSPACE_SERVER_INVALID', message);
  }
}

const namePattern = /^[a-z][a-z0-9_-]{0,29}$/;
const headerPattern = /^[A-Za-z0-9-]{1,64}$/;
/** Largest OpenAPI document a workspace may add. */
export const maxWorkspaceDocumentBytes = 1024 * 1024;

/**
 * Checks what an admin entered and returns the spec to store; throws {@link WorkspaceServerError}
 * naming the field. `taken`: names in use (the operator's catalog, the host's own, the workspace's
 * other servers): a workspace's server never shadows another.
 */
export function checkWorkspaceServer(
  input: Omit<WorkspaceServerSpec, 'addedAt' | 'addedBy'> & { addedBy: string },
  taken: Iterable<string>,
  allow: AddressAllowlist,
  now: Date,
): WorkspaceServerSpec {
  const name = input.name.trim().toLowerCase();
  if (!namePattern.test(name))
    throw new WorkspaceServerError(
      'name',
      'a name is 1–30 lower-case letters, digits, "-" or "_", starting with a letter (e.g. "crm")',
    );
  if (name === 'host' || [...taken].includes(name))
    throw new WorkspaceServerError('name', `"${name}" is already a server here: choose another name`);
  let url: URL;
  try {
    url = new URL(input.url.trim());
  } catch {
    throw new WorkspaceServerError('url', 'the address is not a URL: give it as https://…');
  }
  try {
    checkAddress(url, allow);
  } catch (error) {
    throw new WorkspaceServerError('url', (error as Error).message);
  }
  if (!['none', 'person', 'oauth', 'secret'].includes(input.auth))
    throw new WorkspaceServerError('auth', 'choose none, each person’s token, OAuth or a workspace secret');
  if (input.auth === 'oauth' && input.kind === 'openapi')
    throw new WorkspaceServerError(
      'auth',
      'OAuth sign-in is for remote MCP servers; an OpenAPI API takes a token or a secret',
    );
  const header = input.header?.trim() || undefined;
  if (header && !headerPattern.test(header))
    throw new WorkspaceServerError('header', 'a header name is letters, digits and "-" (e.g. X-Api-Key)');
  const secret = input.secret?.trim() || undefined;
  if (input.auth === 'secret' && !secret)
    throw new WorkspaceServerError('secret', 'a workspace secret is needed for this kind of authentication');
  if (secret && (secret.includes('${') || /[\r\n]/.test(secret)))
    throw new WorkspaceServerError('secret', 'the secret may not hold line breaks or "${"');
  if (input.approval && !['auto', 'writes', 'always'].includes(input.approval))
    throw new WorkspaceServerError('approval', 'choose auto, writes or always');
  const spec: WorkspaceServerSpec = {
    name,
    kind: input.kind === 'openapi' ? 'openapi' : 'mcp',
    url: url.toString(),
    auth: input.auth,
    ...(header ? { header } : {}),
    ...(input.auth === 'secret' && secret ? { secret } : {}),
    ...(input.approval ? { approval: input.approval } : {}),
    ...(input.description?.trim() ? { description: input.description.trim().slice(0, 300) } : {}),
    addedBy: input.addedBy,
    addedAt: now.toISOString(),
  };
  if (spec.kind === 'openapi') {
    const document = input.document?.trim();
    if (document) {
      spec.document = document;
      compiled(spec); // throws naming the document's problem
    }
  }
  return spec;
}

/**
 * Reads an OpenAPI document from its URL for a spec that has none pasted (public addresses only, 1 MB,
 * 10 s); the document's first server, resolved against its URL, is the API's base unless it names none.
 */
export async function fetchWorkspaceDocument(
  spec: WorkspaceServerSpec,
  allow: AddressAllowlist,
): Promise<WorkspaceServerSpec> {
  if (spec.kind !== 'openapi' || spec.document) return spec;
  const send = await guardedFetch(allow);
  let text: string;
  try {
    const response = await send(spec.url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const length = Number(response.headers.get('content-length') ?? 0);
    if (length > maxWorkspaceDocumentBytes) throw new Error('the document is larger than 1 MB');
    // Read through a cap: a body that never says its length stops at 1 MB, never buffered whole.
    text = await capResponse(response, maxWorkspaceDocumentBytes)
      .text()
      .catch((error: unknown) => {
        throw error instanceof ResponseTooLargeError ? new Error('the document is larger than 1 MB') : error;
      });
  } catch (error) {
    throw new WorkspaceServerError(
      'document',
      `the OpenAPI document could not be read: ${(error as Error).message}`,
    );
  }
  const withDocument = { ...spec, document: text };
  const servers = (parsed(withDocument) as { servers?: Array<{ url?: unknown }> }).servers;
  const first = typeof servers?.[0]?.url === 'string' ? new URL(servers[0].url, spec.url) : undefined;
  if (first) {
    try {
      checkAddress(first, allow);
    } catch (error) {
      throw new WorkspaceServerError('document', `the document's server: ${(error as Error).message}`);
    }
  }
  compiled(withDocument);
  return first ? { ...withDocument, url: first.toString() } : withDocument;
}

function parsed(spec: WorkspaceServerSpec): unknown {
  if (Buffer.byteLength(spec.document ?? '') > maxWorkspaceDocumentBytes)
    throw new WorkspaceServerError('document', 'the document is larger than 1 MB');
  try {
    return JSON.parse(spec.document ?? '');
  } catch {
    throw new WorkspaceServerError('document', 'the OpenAPI document must be JSON (OpenAPI 3.x)');
  }
}

function compiled(spec: WorkspaceServerSpec) {
  try {
    return compileOpenApi(parsed(spec), {});
  } catch (error) {
    if (!(error instanceof OpenApiSpecError)) throw error;
    throw new WorkspaceServerError('document', `the OpenAPI document: ${error.message}`);
  }
}

/** The header a spec's credential travels in, with `value` in it. */
function credentialHeader(spec: WorkspaceServerSpec, value: string): Record<string, string> {
  const header = spec.header ?? 'Authorization';
  return { [header]: header.toLowerCase() === 'authorization' ? `Bearer ${value}` : value };
}

/**
 * The host's config for a workspace's server: its workspace, public addresses only, each person's
 * token as `${token}` (a per-person connection) or the workspace's secret, and no `instructions` from
 * the server in the system prompt (a workspace's server is not the operator's to trust).
 */
export function workspaceServerConfig(
  spec: WorkspaceServerSpec,
  workspace: string,
  allow: AddressAllowlist,
): ServerConfig {
  const headers =
    spec.auth === 'person'
      ? credentialHeader(spec, '${token}')
      : spec.auth === 'secret' && spec.secret
        ? credentialHeader(spec, spec.secret)
        : {};
  const common = {
    name: spec.name,
    timeoutMs: 30_000,
    disabled: false,
    approval: (spec.approval ?? 'writes') as ApprovalPolicy,
    serverInstructions: false,
    enabledByDefault: true,
    ...(spec.auth === 'person' || spec.auth === 'oauth'
      ? { connection: 'per_user' as const, personalCredential: true }
      : { connection: 'shared' as const }),
    ...(spec.secret ? { substituted: [spec.secret] } : {}),
    publicAddressesOnly: allow,
    workspace,
  };
  if (spec.kind === 'openapi')
    return {
      ...common,
      transport: 'openapi',
      api: compiled(spec),
      baseUrl: spec.url,
      headers,
      security: {},
    };
  return {
    ...common,
    transport: 'http',
    url: spec.url,
    headers,
    ...(spec.auth === 'oauth' ? { oauth: { grant: 'authorization_code' as const } } : {}),
  };
}
