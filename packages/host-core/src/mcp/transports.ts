import type { Logger } from '@ai-assistant/chat-types';
import type { OAuthClientProvider, Transport } from '@modelcontextprotocol/client';
import type { OAuthSettings, RemoteServerConfig } from '../config/server-types.js';
import { guardedFetch } from '../net/address-guard.js';
import { privateKeyJwtProvider } from '../oauth/client-assertion.js';
import type { OAuthService } from '../oauth/oauth-service.js';
import { bearerChallenge } from '../oauth/sdk-auth.js';
import { environmentSecrets, type Redactor } from '../redaction.js';
import { defaultMaxResponseBytes } from '../tools/openapi-call.js';
import { capResponse } from './capped-response.js';
import type { McpConnection } from './connection.js';
import { currentTokens, fillHeaders } from './header-templates.js';
import { InsufficientScopeError } from './request-errors.js';
import { stderrLinesKept } from './stderr-cause.js';

/** What opening a transport needs from the manager. */
export interface TransportContext {
  logger: Logger;
  redactor: Redactor;
  env: NodeJS.ProcessEnv;
  /** MCP authorization for OAuth servers (unset: the host has no public URL to be redirected to). */
  oauth?: OAuthService;
}

/**
 * Registers a connection's configured secrets: pinned (hidden everywhere), except values holding a
 * person's own secret, which are hidden in the logs only (their view hides them in their output):
 * one person's credential must never rewrite another's results.
 */
function keepSecrets(context: TransportContext, personal: string | undefined, values: string[]): void {
  for (const value of values) {
    if (personal && value.includes(personal)) context.redactor.add([value, personal]);
    else context.redactor.pin([value]);
  }
}

/** stdio: the child gets only a minimal inherited environment plus its configured `env`; stderr is kept. */
async function stdioTransport(connection: McpConnection, context: TransportContext): Promise<Transport> {
  const config = connection.config;
  if (config.transport !== 'stdio') throw new Error(`${config.transport} is not stdio`);
  // Secrets passed on purpose in the child's env are secrets of the host too (a person's are theirs).
  keepSecrets(context, config.personalSecret, environmentSecrets(config.env));
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  // A subclass, so the SDK asks `server/discover` on this process itself instead of starting a second,
  // short-lived one for the question: a server starts once (its start may take a lock, migrate a
  // database or take seconds), and a host of many servers spawns no more processes than it runs.
  class InPlaceStdioTransport extends StdioClientTransport {}
  const transport = new InPlaceStdioTransport({
    command: config.command,
    args: config.args,
    // The SDK adds only a minimal inherited set (PATH, HOME, …): the host's secrets stay here.
    env: config.env,
    cwd: config.cwd,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      connection.stderrTail = [...connection.stderrTail.slice(1 - stderrLinesKept), line.slice(0, 500)];
      context.logger.debug({ server: config.name, stderr: line.slice(0, 2000) }, 'MCP server stderr');
    }
  });
  return transport;
}

/**
 * The transport of one MCP server. Each transport's module is loaded only when a config asks for it
 * (stdio's alone is a fifth of the SDK client's import time); HTTP and SSE
 * send their headers through a fetch that fills the templates per request (the request's tokens,
 * then the environment) and caps every response body.
 */
export async function createTransport(
  connection: McpConnection,
  context: TransportContext,
): Promise<Transport> {
  const config = connection.config;
  if (config.transport === 'stdio') return stdioTransport(connection, context);
  if (config.transport !== 'http' && config.transport !== 'sse')
    throw new Error(`${config.transport} has no transport`);
  keepSecrets(
    context,
    config.personalSecret,
    Object.values(fillHeaders(config.headers, {}, context.env).headers),
  );
  // A workspace's server: public addresses only, checked at connect time, redirects within its origin only.
  const reach = config.publicAddressesOnly ? await guardedFetch(config.publicAddressesOnly) : fetch;
  const person = config.oauthPerson;
  const authProvider = config.oauth ? await oauthProvider(config, context) : undefined;
  // A person's OAuth connection: their token on every request, a 401 handled by the host's grants.
  const send =
    person && !authProvider && context.oauth ? context.oauth.authorizedFetch(person, config, reach) : reach;
  const fetchWithHeaders = (input: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    for (const [header, value] of Object.entries(
      fillHeaders(config.headers, currentTokens(), context.env).headers,
    ))
      headers.set(header, value);
    return send(input, { ...init, headers }).then(async (response) => {
      if (response.status === 403) {
        const { error, scope, error_description } = bearerChallenge(response.headers.get('www-authenticate'));
        if (error === 'insufficient_scope') {
          // A person's server asking for more access: their next connect asks for it, and the request
          // fails as such (never through the SDK's refresh, which cannot add scope).
          if (person) context.oauth?.noteChallenge(person, config.name, response);
          await response.body?.cancel();
          throw new InsufficientScopeError(config.name, scope, error_description);
        }
      }
      return capResponse(response, config.maxResponseBytes ?? defaultMaxResponseBytes);
    });
  };
  const url = new URL(config.url);
  if (config.transport === 'http') {
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    return new StreamableHTTPClientTransport(url, {
      fetch: fetchWithHeaders,
      ...(authProvider ? { authProvider } : {}),
    });
  }
  const { SSEClientTransport } = await import('@modelcontextprotocol/client');
  return new SSEClientTransport(url, {
    fetch: fetchWithHeaders,
    eventSourceInit: { fetch: fetchWithHeaders },
    ...(authProvider ? { authProvider } : {}),
  });
}

/**
 * How an OAuth server's connection authenticates: a `client_credentials` server with the operator's
 * client, through the SDK's providers (client secret, or a `private_key_jwt` assertion signed with an
 * algorithm that fits the key and the authorization server); a person's connection with none
 * (undefined): their tokens go with each request and a 401 is handled by the host's OAuth service
 * ({@link OAuthService.authorizedFetch}), never by the SDK's own authorization, which would follow the
 * challenge to whichever authorization server it names.
 */
async function oauthProvider(
  config: RemoteServerConfig,
  context: TransportContext,
): Promise<OAuthClientProvider | undefined> {
  const oauth = config.oauth as OAuthSettings;
  if (oauth.grant === 'client_credentials') {
    const privateKey = oauth.privateKey;
    if (privateKey) return privateKeyJwtProvider(config.name, { ...oauth, privateKey });
    const { ClientCredentialsProvider } = await import('@modelcontextprotocol/client');
    return new ClientCredentialsProvider({
      clientId: oauth.clientId as string,
      clientSecret: oauth.clientSecret as string,
      ...(oauth.scope ? { scope: oauth.scope } : {}),
      ...(oauth.issuer ? { expectedIssuer: oauth.issuer } : {}),
    });
  }
  if (!config.oauthPerson)
    throw new Error('an OAuth server is connected per person: open it through a person’s view');
  if (!context.oauth)
    throw new Error(
      'OAuth is not set up on this host: it needs the public URL people are sent back to (see README, "Remote servers with OAuth")',
    );
  return undefined;
}
