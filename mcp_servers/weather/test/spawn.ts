import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { recordedNow } from './scenarios.js';

/** The built executable; integration tests run it as a real child process. */
export const serverEntry = resolve(import.meta.dirname, '..', 'dist', 'index.js');

if (!existsSync(serverEntry)) {
  throw new Error(`${serverEntry} is missing: run "pnpm build" first (pnpm test does it through turbo)`);
}

/** Environment for a spawned server: the fake JMA, a short timeout and the recorded clock. */
export function serverEnvironment(jmaBaseUrl: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    JMA_BASE_URL: jmaBaseUrl,
    JMA_TIMEOUT_MS: '500',
    MCP_WEATHER_NOW: recordedNow,
    LOG_LEVEL: 'warn',
  };
}

/** Runs the executable to completion with the given arguments. */
export function runServer(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [serverEntry, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/** Starts `--http --port 0` and resolves with the URL it logs once listening. */
export function startHttpServer(
  environment: Record<string, string>,
  extraArgs: string[] = [],
): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [serverEntry, '--http', '--port', '0', ...extraArgs], {
      env: { ...environment, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`HTTP server did not start: ${stderr}`));
    }, 10_000);
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
      const url = /"url":"([^"]+)"/.exec(stderr)?.[1];
      if (url) {
        clearTimeout(timer);
        resolvePromise({ url, child });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`HTTP server exited with ${code}: ${stderr}`));
    });
  });
}

/** Sends SIGTERM and waits for the exit code. */
export function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolvePromise) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolvePromise(code);
    });
    child.kill('SIGTERM');
  });
}
