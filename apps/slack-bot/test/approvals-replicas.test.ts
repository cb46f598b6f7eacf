import { createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { completion, type FakeRequest, postgresBinaries, recordsServerPath } from '@ai-assistant/test-kit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalActions } from '../src/slack/approvals.js';
import { type Cluster, signingSecret, startCluster } from './cluster.js';
import { waitFor } from './harness.js';

const hasPostgres = postgresBinaries() !== undefined;
const title = 'approvals across replicas';

/** Asks to delete a record, then says what the tool answered. */
function recordsModel(request: FakeRequest) {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: unknown }>;
  const last = messages.at(-1);
  if (last?.role === 'tool') return completion(request, { text: `結果: ${String(last.content)}` });
  return completion(request, {
    toolCall: { name: 'mcp__records__delete_record', arguments: { id: 'r-42' } },
  });
}

/**
 * A button press as Slack delivers it to an app in HTTP mode (form-encoded `payload`, signed), sent to
 * one replica of our choosing.
 */
async function pressOn(
  url: string,
  options: { channel: string; messageTs: string; actionId: string; value: string },
) {
  const payload = {
    type: 'block_actions',
    team: { id: 'T0001', domain: 'test' },
    user: { id: 'UHUMAN01', username: 'UHUMAN01', team_id: 'T0001' },
    api_app_id: 'A0001',
    token: 'verification',
    container: {
      type: 'message',
      message_ts: options.messageTs,
      channel_id: options.channel,
      is_ephemeral: false,
    },
    trigger_id: `trigger-${options.messageTs}`,
    channel: { id: options.channel, name: options.channel },
    message: { ts: options.messageTs, text: '' },
    actions: [
      {
        type: 'button',
        action_id: options.actionId,
        block_id: 'approval',
        value: options.value,
        action_ts: String(Date.now() / 1000),
      },
    ],
  };
  const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  const response = await fetch(`${url}/slack/events`, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': signature,
    },
    signal: AbortSignal.timeout(10_000),
  });
  await response.arrayBuffer();
  return response.status;
}

/** One value of the cluster's database. */
async function queryOne(cluster: Cluster, text: string, values: unknown[] = []): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: cluster.databaseUrl });
  await client.connect();
  try {
    return (await client.query<{ value: string }>(text, values)).rows[0]?.value;
  } finally {
    await client.end();
  }
}

const advisoryLocks = async (cluster: Cluster) =>
  Number(
    await queryOne(
      cluster,
      `select count(*)::text as value from pg_locks where locktype = 'advisory'
         and database = (select oid from pg_database where datname = current_database())`,
    ),
  );

/** Waits (bounded) until `check` holds, asking the database again and again. */
async function eventually(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

(hasPostgres ? describe : describe.skip)(
  hasPostgres ? title : `${title} (platform skip: no initdb or pg_ctl on this machine)`,
  () => {
    let cluster: Cluster;
    let folder: string;
    let callsFile: string;
    const calls = () =>
      existsSync(callsFile)
        ? readFileSync(callsFile, 'utf8')
            .split('\n')
            .filter((line) => line !== '')
        : [];

    /** The approval message in the thread (it has buttons until it is decided). */
    const approvalMessage = (channel: string, threadTs: string) =>
      waitFor(() => {
        const message = cluster.slack
          .thread(channel, threadTs)
          .find((entry) => Array.isArray(entry.blocks) && entry.blocks.length > 0);
        if (!message) return undefined;
        const actions = (message.blocks as Array<{ type: string; elements?: Array<{ value: string }> }>).find(
          (block) => block.type === 'actions',
        );
        return { ts: message.ts, id: actions?.elements?.[0]?.value ?? '' };
      }, 20_000);

    beforeAll(async () => {
      folder = mkdtempSync(join(tmpdir(), 'approvals-replicas-'));
      callsFile = join(folder, 'calls.jsonl');
      const config = join(folder, 'mcp_servers.json');
      writeFileSync(
        config,
        JSON.stringify({
          mcpServers: {
            records: {
              command: process.execPath,
              args: [recordsServerPath],
              env: { RECORDS_CALLS_FILE: callsFile },
            },
          },
        }),
      );
      cluster = (await startCluster({
        count: 2,
        maxConcurrent: 4,
        model: recordsModel,
        env: { MCP_ENABLED: 'true', MCP_SERVERS_CONFIG: config, APPROVAL_TIMEOUT_MS: '60000' },
      })) as Cluster;
    }, 120_000);
    afterAll(async () => {
      await cluster?.close();
      rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
    }, 60_000);

    it('asked by replica A, pressed on replica B: the tool runs once, and A answers', async () => {
      const { slack, proxy, replicas } = cluster;
      proxy.sendNextTo(0);
      const { ts } = await slack.mention('C_APPROVE', 'r-42 を消して');
      const approval = await approvalMessage('C_APPROVE', ts);
      expect(calls()).toEqual([]);
      // Before: replica B knew nothing of A's request and said it was no longer active.
      const press = {
        channel: 'C_APPROVE',
        messageTs: approval.ts,
        actionId: approvalActions.approve,
        value: approval.id,
      };
      expect(await pressOn(replicas[1]?.url as string, press)).toBe(200);
      const answer = await waitFor(
        () =>
          slack
            .thread('C_APPROVE', ts)
            .find((message) => !message.streaming && message.text.startsWith('結果:')),
        20_000,
      );
      expect(answer.text).toContain('r-42');
      const updated = slack.thread('C_APPROVE', ts).find((message) => message.ts === approval.ts);
      expect(updated?.text).toMatch(/^✅ <@UHUMAN01> が/);
      expect(updated?.blocks).toEqual([]);
      // A second press, on either replica, finds nothing to decide.
      expect(await pressOn(replicas[0]?.url as string, press)).toBe(200);
      const told = await waitFor(() => slack.callsOf('chat.postEphemeral')[0], 10_000);
      expect(told.args.text).toContain('もう有効ではありません');
      expect(calls()).toEqual([JSON.stringify({ id: 'r-42' })]);
    }, 60_000);

    it('a replica that dies while asking: at the next start its request expires and its message says so', async () => {
      const { slack, proxy, replicas } = cluster;
      proxy.sendNextTo(0);
      const { ts } = await slack.mention('C_ORPHAN', 'r-42 を消して');
      const approval = await approvalMessage('C_ORPHAN', ts);
      // The replica records where it posted right after posting; killed before that, nothing could
      // say where its message is.
      await eventually('the request records its message', async () =>
        (
          (await queryOne(cluster, 'select detail as value from pending_approvals where id = $1', [
            approval.id,
          ])) ?? ''
        ).includes(approval.ts),
      );
      replicas[0]?.child.kill('SIGKILL');
      await replicas[0]?.exited;
      // Its sessions end with it; then only the other replica's liveness lock is left.
      await eventually(
        'the killed replica’s locks are gone',
        async () => (await advisoryLocks(cluster)) === 1,
      );
      await cluster.restart(0);
      const expired = await waitFor(() => {
        const message = slack.thread('C_ORPHAN', ts).find((entry) => entry.ts === approval.ts);
        return message?.text.includes('再起動のため期限切れ') ? message : undefined;
      }, 20_000);
      expect(expired.blocks).toEqual([]);
      // A press now is told the request is no longer active, and the tool never runs.
      const before = slack.callsOf('chat.postEphemeral').length;
      await pressOn(cluster.replicas[1]?.url as string, {
        channel: 'C_ORPHAN',
        messageTs: approval.ts,
        actionId: approvalActions.approve,
        value: approval.id,
      });
      await waitFor(() => slack.callsOf('chat.postEphemeral').length > before, 10_000);
      expect(slack.callsOf('chat.postEphemeral').at(-1)?.args.text).toContain('もう有効ではありません');
      expect(calls()).toHaveLength(1);
    }, 90_000);
  },
);
