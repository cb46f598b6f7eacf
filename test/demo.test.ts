import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script of the repository, without types
import { readable } from '../scripts/lib/slack-display.mjs';

// `pnpm demo`: the bot against the local Slack, the scripted model and JMA, talked to on stdin.
const repoRoot = resolve(import.meta.dirname, '..');

function runDemo(input: string, args = ['--no-build']) {
  return new Promise<{ code: number | null; output: string }>((done) => {
    const child = spawn(process.execPath, [join(repoRoot, 'scripts', 'demo.mjs'), ...args], {
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
  it('#48 --help prints what to type and exits 0, starting nothing', async () => {
    const { code, output } = await runDemo('', ['--help']);
    expect(code).toBe(0);
    expect(output).toMatch(/^Usage: pnpm demo \[--no-build\]/);
    expect(output).toContain('/connect tracker');
    expect(output).not.toContain('building');
  });

  it('#48 the demo shows Slack text readably: mentions, channels, links, escapes', () => {
    const people = { UHUMAN01: 'you', UBOT: 'assistant' };
    expect(
      readable(
        '<@UHUMAN01> and <@UBOT> and <@UOTHER> and <@UX|mika> in <#C1|general> <#C2> <!here> ' +
          'see <https://example.com/a?b=1&amp;c=2|the docs> or <https://example.com> ' +
          '\\[1] \\*not bold\\* &lt;tag&gt; &amp; `code`',
        people,
      ),
    ).toBe(
      '@you and @assistant and @user and @mika in #general #channel @here ' +
        'see the docs (https://example.com/a?b=1&c=2) or https://example.com ' +
        '[1] *not bold* <tag> & `code`',
    );
  });

  it('#48 answers the weather, asks before a write and runs it once pressed, answers a slash command, connects the OAuth server and calls its tool, and exits 0', async () => {
    const { code, output } = await runDemo(
      [
        '東京の天気を教えて',
        '/new',
        'call search_knowledge {"query": "KNOWLEDGE_DIR"}',
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
    // Shown as a person reads Slack: mentions by name, citations without mrkdwn's escapes.
    expect(output).toContain('[1] このフォルダについて');
    expect(output).toContain('✅ @you が `delete_record`');
    expect(output).not.toMatch(/\\\[|<@U|<https?:/);
    expect(code).toBe(0);
  }, 300_000);
});
