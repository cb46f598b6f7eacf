import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// `pnpm demo`: the bot against the local Slack, the scripted model and JMA, talked to on stdin.
const repoRoot = resolve(import.meta.dirname, '..');

function runDemo(input: string) {
  return new Promise<{ code: number | null; output: string }>((done) => {
    const child = spawn(process.execPath, [join(repoRoot, 'scripts', 'demo.mjs'), '--no-build'], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    // A safety net only: the demo exits on /exit once each answer has come.
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, output });
    });
    child.stdin.end(input);
  });
}

describe('pnpm demo', () => {
  it('#48 answers the weather, asks before a write and runs it once pressed, answers a slash command, connects the OAuth server and calls its tool, and exits 0', async () => {
    const { code, output } = await runDemo(
      [
        '東京の天気を教えて',
        '/new',
        'call delete_record {"id": "r1"}',
        '/press 1',
        '/assistant servers',
        '/new',
        // The protected server: signed in through the bot's Connect link, its start page and the
        // local authorization server, then its tool runs with the person's own token.
        '/connect tracker',
        'call whoami',
        '/exit',
        '',
      ].join('\n'),
    );
    expect(output).toContain('晴れ時々くもり');
    expect(output).toContain('承認が必要です: `delete_record`');
    expect(output).toContain('deleted with {"id":"r1"}');
    expect(output).toMatch(/`weather` \(stdio\) — connected/);
    expect(output).toContain('Connected — you can close this tab');
    expect(output).toContain('you are demo-person');
    expect(code).toBe(0);
  }, 300_000);
});
