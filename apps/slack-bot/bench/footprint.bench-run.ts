import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { newKey } from '@ai-assistant/store';
import { startFakeSlack, startFakeVendor, startPostgres } from '@ai-assistant/test-kit';
import { it } from 'vitest';
import { freePort, runBotProcess } from '../test/harness.js';

const appFolder = resolve(import.meta.dirname, '..');

/** The process's resident memory now (MiB), from /proc. */
function residentMiB(pid: number): number {
  const kib = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN);
  return kib / 1024;
}

/** Starts the built bot (MCP off) on the fake Slack, lets it idle, and reads its RSS. */
async function idleRss(store: Record<string, string>, slackUrl: string, modelUrl: string): Promise<number> {
  const bot = runBotProcess('dist/main.js', appFolder, {
    PATH: process.env.PATH ?? '',
    SLACK_BOT_TOKEN: 'xoxb-footprint-bench-0123',
    SLACK_APP_TOKEN: 'xapp-footprint-bench-0123',
    SLACK_API_URL: slackUrl,
    OPENAI_API_KEY: 'sk-footprint-bench-0123',
    OPENAI_BASE_URL: modelUrl,
    PORT: String(await freePort()),
    MCP_ENABLED: 'false',
    ...store,
  });
  try {
    const deadline = Date.now() + 60_000;
    while (!/listening|connected|started/i.test(bot.output()) && Date.now() < deadline)
      await new Promise((done) => setTimeout(done, 100));
    await new Promise((done) => setTimeout(done, 3000)); // idle
    return residentMiB(bot.child.pid as number);
  } finally {
    bot.child.kill('SIGTERM');
    await bot.exited;
  }
}

it('the idle bot’s resident memory with each store engine', async () => {
  const [slack, llm] = await Promise.all([startFakeSlack(), startFakeVendor()]);
  const postgres = await startPostgres();
  const dataDir = mkdtempSync(join(tmpdir(), 'footprint-bench-'));
  const rows: Array<[string, string]> = [];
  try {
    const embeddedFirst = await idleRss({ DATA_DIR: dataDir }, slack.apiUrl, llm.baseURL);
    const embeddedAgain = await idleRss({ DATA_DIR: dataDir }, slack.apiUrl, llm.baseURL);
    rows.push([
      'idle bot, embedded store (PGlite), first start / restart',
      `${embeddedFirst.toFixed(0)} / ${embeddedAgain.toFixed(0)} MiB ${Math.max(embeddedFirst, embeddedAgain) < 200 ? 'met' : 'MISSED'} (aim < 200)`,
    ]);
    if (!postgres) throw new Error('PostgreSQL (initdb/pg_ctl) is needed for this benchmark');
    const withPostgres = await idleRss(
      { DATABASE_URL: postgres.url, ASSISTANT_ENCRYPTION_KEY: newKey() },
      slack.apiUrl,
      llm.baseURL,
    );
    rows.push(['idle bot, PostgreSQL (DATABASE_URL)', `${withPostgres.toFixed(0)} MiB`]);
  } finally {
    postgres?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await Promise.all([slack.close(), llm.close()]);
  }
  const width = Math.max(...rows.map(([label]) => label.length));
  process.stdout.write(
    `\n@ai-assistant/slack-bot footprint (built bot, MCP off, 3 s idle after start)\n${rows.map(([label, value]) => `| ${label.padEnd(width)} | ${value} |`).join('\n')}\n\n`,
  );
}, 300_000);
