import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';

const entry = resolve(import.meta.dirname, '..', 'dist', 'main.js');

/** Runs the built chat in a temporary folder with `input` on stdin; resolves with its output once it exits (killed after 100 s). */
export function run(args: string[], env: Record<string, string>, input?: string) {
  const workdir = mkdtempSync(resolve(tmpdir(), 'chat-'));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolvePromise) => {
    const child = spawn(process.execPath, [entry, ...args], {
      cwd: workdir,
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    // A safety net only: a test waits for the chat to exit, however slow a busy machine makes it.
    const timer = setTimeout(() => child.kill('SIGKILL'), 100_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      rmSync(workdir, { recursive: true, force: true, maxRetries: 5 });
      resolvePromise({ code, stdout, stderr });
    });
    if (input !== undefined) child.stdin.end(input);
    else child.stdin.end();
  });
}
