import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { People, PersonRef } from '@ai-assistant/assistant';
import { AuthorizationError } from '@ai-assistant/host-core';

/** The terminal's OAuth redirect (RFC 8252 loopback): `http://127.0.0.1:<OAUTH_CALLBACK_PORT>/callback`. */
export function loopbackRedirect(env: NodeJS.ProcessEnv): { port: number; url: string } {
  const raw = env.OAUTH_CALLBACK_PORT?.trim();
  const port = raw ? Number(raw) : 33418;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new AuthorizationError(undefined, 'start', 'OAUTH_CALLBACK_PORT must be a port number (1–65535)');
  return { port, url: `http://127.0.0.1:${port}/callback` };
}

/** Opens `url` in a browser: `BROWSER` (a command) when set, else the desktop's opener where there is a desktop. */
function openBrowser(url: string, env: NodeJS.ProcessEnv): boolean {
  const command = env.BROWSER?.trim();
  const desktop =
    process.platform === 'darwin'
      ? ['open']
      : process.platform === 'win32'
        ? ['cmd', '/c', 'start', '""']
        : env.DISPLAY || env.WAYLAND_DISPLAY
          ? ['xdg-open']
          : undefined;
  const argv = command ? [...command.split(/\s+/)] : desktop;
  if (!argv?.[0] || command === 'none') return false;
  try {
    const child = spawn(argv[0], [...argv.slice(1), url], { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a request to the loopback is this flow's redirect: on the path of the `redirect_uri` the
 * authorization URL names (else `fallback`'s) and carrying the flow's `state` (RFC 6749 §4.1.2: the
 * redirect returns it unchanged, on success and on error). Without a state in the URL, any state will do.
 */
function flowRedirect(authorizationUrl: string, fallback: string): (url: URL) => boolean {
  const query = new URL(authorizationUrl).searchParams;
  const path = new URL(query.get('redirect_uri') ?? fallback).pathname;
  const state = query.get('state');
  return (url) =>
    url.pathname === path &&
    (state ? url.searchParams.get('state') === state : url.searchParams.has('state'));
}

/**
 * `/connect <server>` for an OAuth server: prints the authorization URL (and opens a browser where
 * one exists), waits on the loopback redirect for up to the state's 10 minutes (other requests to the
 * loopback are answered 404 and do not end the wait), then completes the flow. Returns the line to print.
 */
export async function connectWithBrowser(options: {
  people: People;
  person: PersonRef;
  server: string;
  env: NodeJS.ProcessEnv;
  write: (text: string) => void;
  waitMs?: number;
}): Promise<string> {
  const { people, person, server, env, write } = options;
  const { port, url: redirect } = loopbackRedirect(env);
  let started: { url: string; expiresAt: Date };
  try {
    started = await people.beginConnect(person, server);
  } catch (error) {
    return `Not connected: ${error instanceof Error ? error.message : String(error)}`;
  }
  const isFlowRedirect = flowRedirect(started.url, redirect);
  const callback = new Promise<string>((resolve, reject) => {
    const listener = createServer((request, response) => {
      const url = new URL(request.url ?? '/', `http://127.0.0.1:${port}`);
      // A favicon, a reload of a bare page, another flow's redirect: answered, and the wait goes on.
      if (!isFlowRedirect(url)) {
        response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('Not the sign-in this terminal is waiting for.');
        return;
      }
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('Back to the terminal: the assistant finishes connecting there. You can close this tab.');
      clearTimeout(timer);
      listener.close();
      resolve(url.toString());
    });
    const timer = setTimeout(
      () => {
        listener.close();
        reject(new AuthorizationError(server, 'redirect', 'no sign-in came back within 10 minutes'));
      },
      options.waitMs ?? started.expiresAt.getTime() - Date.now(),
    );
    timer.unref();
    listener.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        new AuthorizationError(
          server,
          'redirect',
          error.code === 'EADDRINUSE'
            ? `port ${port} on 127.0.0.1 is in use; set OAUTH_CALLBACK_PORT to a free one`
            : error.message,
        ),
      );
    });
    listener.listen(port, '127.0.0.1');
  });
  write(`Sign in to ${server} in your browser:\n  ${started.url}\n`);
  write(
    openBrowser(started.url, env) ? 'A browser was opened; waiting…\n' : 'Open the link above; waiting…\n',
  );
  try {
    const done = await people.completeConnect(await callback);
    return `✓ connected: ${done.server} now uses your own account.`;
  } catch (error) {
    return `Not connected: ${error instanceof Error ? error.message : String(error)}`;
  }
}
