import { createServer } from 'node:http';
import { rowsMentioning } from '@ai-assistant/store/testing';
import { listenOnLoopback, startTokenServer, type TokenServer, tokenOf } from '@ai-assistant/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { homeActions } from '../src/slack/app-home.js';
import { adminActions, serverFields } from '../src/slack/workspace-admin.js';
import {
  answered,
  type Harness,
  mentionBot,
  openHome,
  publishedHome,
  startHarness,
  waitFor,
} from './harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('App Home', () => {
  it('a member sees the servers, their state and their own usage; an admin also their controls and the audit', async () => {
    harness = await startHarness();
    const running = harness;
    running.slack.setPerson('U_ADMIN', { team: 'T0001', admin: true });
    await running.store?.usage.add('T0001', 'UHUMAN01', new Date().toISOString().slice(0, 10), {
      questions: 3,
      inputTokens: 1000,
      outputTokens: 234,
      toolCalls: 2,
    });
    await openHome(running, 'UHUMAN01');
    const member = await waitFor(() => publishedHome(running, 'UHUMAN01'));
    expect(member).toContain('*weather* (stdio)');
    // #42 the catalog's size: per server in its line, and in all.
    expect(member).toContain('1 tool from 1 server; each question is offered the few that fit it');
    expect(member).toContain('3 questions, 1,234 model tokens, 2 tool calls');
    expect(member).not.toContain(homeActions.disable);
    expect(member).not.toContain('Latest audit entries');

    await openHome(running, 'U_ADMIN');
    const admin = await waitFor(() => publishedHome(running, 'U_ADMIN'));
    expect(admin).toContain(homeActions.disable);
    expect(admin).toContain('Latest audit entries');
  }, 30_000);

  it('a server the config turns off offers no switch; an OAuth server without PUBLIC_URL offers no Connect, and says why', async () => {
    harness = await startHarness({
      servers: {
        archive: { command: process.execPath, args: ['-e', ''], disabled: true },
        tickets: { url: 'https://tickets.example/mcp', oauth: true },
      },
    });
    const running = harness;
    running.slack.setPerson('U_ADMIN', { team: 'T0001', admin: true });
    await openHome(running, 'U_ADMIN');
    const view = JSON.parse((await waitFor(() => publishedHome(running, 'U_ADMIN'))) as string) as {
      blocks: Array<{ type: string; block_id?: string; text?: { text: string } }>;
    };
    const section = (name: string) =>
      view.blocks.find((block) => block.type === 'section' && block.text?.text.startsWith(`*${name}*`))?.text
        ?.text;
    const actions = (name: string) => view.blocks.find((block) => block.block_id === `server:${name}`);
    expect(section('archive')).toContain('turned off in the operator’s config');
    expect(actions('archive')).toBeUndefined();
    expect(section('tickets')).toContain(
      'you: cannot connect here (OAuth sign-in needs the bot’s PUBLIC_URL',
    );
    expect(JSON.stringify(actions('tickets'))).not.toContain(homeActions.connect);
    // The operator's servers the config runs keep their switches.
    expect(JSON.stringify(actions('weather'))).toContain(homeActions.disable);
  }, 30_000);

  it('a member’s forged Disable is refused (checked with users.info on the press); an admin’s works and is audited', async () => {
    harness = await startHarness();
    const running = harness;
    running.slack.setPerson('U_ADMIN', { team: 'T0001', admin: true });
    const enabled = async () =>
      (await running.people.servers({ workspace: 'T0001', user: 'UHUMAN01' })).find(
        (server) => server.name === 'weather',
      )?.enabled;
    const before = running.slack.callsOf('views.publish').length;
    await running.slack.pressInView({ actionId: homeActions.disable, value: 'weather', user: 'UHUMAN01' });
    await waitFor(() => publishedHome(running, 'UHUMAN01', before));
    expect(await enabled()).toBe(true);
    expect(running.logger.lines.some((line) => /not an admin was refused/.test(line.message))).toBe(true);

    await running.slack.pressInView({ actionId: homeActions.disable, value: 'weather', user: 'U_ADMIN' });
    await waitFor(() => publishedHome(running, 'U_ADMIN'));
    expect(await enabled()).toBe(false);
    const audit = await running.store?.audit.recent('T0001');
    expect(audit?.[0]).toMatchObject({ kind: 'admin', person: 'U_ADMIN', detail: 'disabled weather' });
  }, 30_000);
});

describe('App Home: servers a workspace adds, approval per server, budgets', () => {
  let remote: TokenServer | undefined;
  afterEach(() => {
    remote?.close();
    remote = undefined;
  });

  /** The add-a-server modal's inputs, as an admin fills them. */
  const fields = (url: string, extra: Record<string, string | Record<string, unknown>> = {}) => ({
    [serverFields.name]: 'crm',
    [serverFields.kind]: { type: 'static_select', selected_option: { value: 'mcp' } },
    [serverFields.url]: { type: 'url_text_input', value: url },
    [serverFields.auth]: { type: 'static_select', selected_option: { value: 'secret' } },
    [serverFields.secret]: secret,
    ...extra,
  });
  const secret = tokenOf('team');
  const toolsOffered = (running: Harness) =>
    (running.llm.requests.at(-1)?.body.tools as Array<{ function: { name: string } }> | undefined)?.map(
      (tool) => tool.function.name,
    ) ?? [];
  const submit = async (running: Harness, user: string, values: ReturnType<typeof fields>) => {
    const envelope = await running.slack.submitView({
      callbackId: adminActions.addModal,
      privateMetadata: '',
      values,
      user,
    });
    return waitFor(() => running.slack.ackPayloads.get(envelope));
  };

  /** An admin presses Test in the add-a-server modal filled with `values`. */
  const pressTest = (running: Harness, values: ReturnType<typeof fields>) =>
    running.slack.pressInView({
      actionId: adminActions.testServer,
      value: 'test',
      user: 'U_ADMIN',
      viewType: 'modal',
      callbackId: adminActions.addModal,
      values,
    });

  it('an admin tests and adds a remote server: offered in that workspace’s next turn and not in another; a member’s forged add is refused', async () => {
    remote = await startTokenServer({ requireToken: true });
    harness = await startHarness({ mcpEnv: { WORKSPACE_SERVERS_ALLOW: '127.0.0.1' } });
    const running = harness;
    running.slack.setPerson('U_ADMIN', { team: 'T0001', admin: true });
    running.slack.setPerson('U_OTHER', { team: 'T0002' });

    // Add a server opens the modal for an admin only.
    await running.slack.pressInView({ actionId: adminActions.addServer, value: 'add', user: 'UHUMAN01' });
    await running.slack.pressInView({ actionId: adminActions.addServer, value: 'add', user: 'U_ADMIN' });
    const opened = await waitFor(() => running.slack.callsOf('views.open')[0]);
    expect(opened.args.view).toMatchObject({ callback_id: adminActions.addModal });
    expect(running.slack.callsOf('views.open')).toHaveLength(1);

    // Test inside the modal: connects once, shows the tools, saves nothing.
    await pressTest(running, fields(remote.url));
    const tested = await waitFor(() => running.slack.callsOf('views.update')[0]);
    // The fake Slack refuses modals Slack would (labels over 24 characters, inputs over 3000, …).
    expect(
      running.logger.lines.filter((line) =>
        /could not (open an admin modal|test a server)/.test(line.message),
      ),
    ).toEqual([]);
    expect(JSON.stringify(tested.args.view)).toContain(
      '✓ Test passed: the server answered with 1 tool: `whoami`',
    );
    expect(await running.store?.workspaceServers.list('T0001')).toEqual([]);

    // A member's forged submission is refused: Slack's users.info says they are no admin.
    expect(await submit(running, 'UHUMAN01', fields(remote.url))).toMatchObject({
      response_action: 'errors',
      errors: { [serverFields.name]: expect.stringMatching(/Only workspace admins/) },
    });
    expect(await running.store?.workspaceServers.list('T0001')).toEqual([]);

    const added = await submit(running, 'U_ADMIN', fields(remote.url));
    expect(added).toMatchObject({ response_action: 'update' });
    expect(JSON.stringify(added)).toContain('is added to this workspace with 1 tool');
    const home = await waitFor(() => publishedHome(running, 'U_ADMIN'));
    expect(home).toContain('*crm* (http)');
    expect(home).toContain(adminActions.removeServer);
    // No connection is open until a question uses it: App Home says so, with the tools its Test found
    // (it said "connected, 1 tool" before any connection was made).
    expect(home).toContain('not open now (opens when a question uses it), 1 tool at its last Test');

    const asked = await mentionBot(running, 'C0ADD', 'crmで私は誰？');
    await answered(running, 'C0ADD', asked.ts);
    expect(toolsOffered(running)).toContain('mcp__crm__whoami');
    // Now it is open, and App Home shows how it stands.
    const before = running.slack.callsOf('views.publish').length;
    await openHome(running, 'U_ADMIN');
    const reopened = await waitFor(() => publishedHome(running, 'U_ADMIN', before));
    expect(reopened).toContain('connected, 1 tool');
    expect(reopened).not.toContain('not open now');
    const elsewhere = await running.slack.mention('C0ELSE', '天気は？', { user: 'U_OTHER' });
    await answered(running, 'C0ELSE', elsewhere.ts);
    expect(toolsOffered(running)).not.toContain('mcp__crm__whoami');
    expect(toolsOffered(running).length).toBeGreaterThan(0);

    // The audit names the admin's change; no table holds the secret in the clear.
    expect((await running.store?.audit.recent('T0001'))?.[0]).toMatchObject({
      kind: 'admin',
      person: 'U_ADMIN',
      detail: expect.stringMatching(/^added crm \(mcp http:\/\/127\.0\.0\.1:\d+, auth secret\)$/),
    });
    expect(await rowsMentioning(running.store as NonNullable<Harness['store']>, secret)).toEqual([]);
  }, 60_000);

  it('#43.17 a Test that fails shows the server’s error text escaped: no disguised link, no ping', async () => {
    const lure = '<https://evil.example/phish|https://slack.com/admin/verify> <!channel>';
    // A server that answers every request with a JSON-RPC error whose message is the lure.
    const lying = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        const id = (JSON.parse(body || '{}') as { id?: unknown }).id ?? null;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message: lure } }));
      });
    });
    const url = `${await listenOnLoopback(lying)}/mcp`;
    try {
      harness = await startHarness({ mcpEnv: { WORKSPACE_SERVERS_ALLOW: '127.0.0.1' } });
      const running = harness;
      running.slack.setPerson('U_ADMIN', { team: 'T0001', admin: true });
      const none = { type: 'static_select', selected_option: { value: 'none' } };
      await pressTest(running, fields(url, { [serverFields.auth]: none }));
      const tested = await waitFor(() => running.slack.callsOf('views.update')[0]);
      const blocks = (tested.args.view as { blocks: Array<{ block_id?: string; text?: { text: string } }> })
        .blocks;
      const result = blocks.find((block) => block.block_id === 'result')?.text?.text ?? '';
      expect(result).toMatch(/^✗ /);
      // Before: `✗ … <https://evil.example/phish|https://slack.com/admin/verify> <!channel>` as mrkdwn.
      expect(result).not.toMatch(/<|>/);
      expect(result).toContain('&lt;!channel&gt;');
    } finally {
      lying.closeAllConnections();
      lying.close();
    }
  }, 30_000);

  it('metadata, loopback and private addresses are refused on the address field unless the operator allows them', async () => {
    harness = await startHarness({ mcpEnv: { WORKSPACE_SERVERS_ALLOW: '127.0.0.1' } });
    const running = harness;
    running.slack.setPerson('U_ADMIN', { team: 'T0001', admin: true });
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://127.0.0.2:8080/mcp',
      'http://192.168.1.10/mcp',
    ]) {
      const ack = await submit(running, 'U_ADMIN', fields(url));
      expect(ack, url).toMatchObject({
        response_action: 'errors',
        errors: {
          [serverFields.url]: expect.stringMatching(/loopback, private, link-local or metadata address/),
        },
      });
    }
    expect(await running.store?.workspaceServers.list('T0001')).toEqual([]);
  }, 30_000);

  it('an admin asks for approval of every call of a server; a member cannot; budgets stop the second question', async () => {
    harness = await startHarness();
    const running = harness;
    running.slack.setPerson('U_ADMIN', { team: 'T0001', admin: true });
    const needsApproval = async () =>
      (await running.people.viewFor({ workspace: 'T0001', user: 'UHUMAN01' }))
        ?.listTools()
        .find((tool) => tool.name.startsWith('mcp__weather__'))?.needsApproval;
    expect(await needsApproval()).toBe(false);
    await running.slack.pressInView({
      actionId: adminActions.approval,
      value: '',
      selected: 'always:weather',
      user: 'UHUMAN01',
    });
    await waitFor(() => running.logger.lines.some((line) => /not an admin was refused/.test(line.message)));
    expect(await needsApproval()).toBe(false);
    await running.slack.pressInView({
      actionId: adminActions.approval,
      value: '',
      selected: 'always:weather',
      user: 'U_ADMIN',
    });
    await waitFor(() => publishedHome(running, 'U_ADMIN'));
    expect(await needsApproval()).toBe(true);
    // Asking for fewer approvals than the operator's `writes` is not offered, and not applied.
    expect(publishedHome(running, 'U_ADMIN')).not.toContain('auto:weather');
    await running.slack.pressInView({
      actionId: adminActions.approval,
      value: '',
      selected: 'default:weather',
      user: 'U_ADMIN',
    });
    await waitFor(async () => (await needsApproval()) === false);

    // Budgets: one question a minute for each person, set in App Home.
    await running.slack.pressInView({ actionId: adminActions.budgets, value: 'budgets', user: 'U_ADMIN' });
    expect((await waitFor(() => running.slack.callsOf('views.open')[0])).args.view).toMatchObject({
      callback_id: adminActions.budgetsModal,
    });
    const saved = await running.slack.submitView({
      callbackId: adminActions.budgetsModal,
      privateMetadata: '',
      values: { questionsPerPersonMinute: { type: 'number_input', value: '1' } },
      user: 'U_ADMIN',
    });
    await waitFor(() => running.slack.ackPayloads.has(saved) || undefined);
    expect(await running.people.limits('T0001')).toEqual({ questionsPerPersonMinute: 1 });
    expect(running.logger.lines.filter((line) => /could not open an admin modal/.test(line.message))).toEqual(
      [],
    );
    const first = await mentionBot(running, 'C0BUDGET', '東京の天気は？');
    await answered(running, 'C0BUDGET', first.ts);
    const modelCalls = running.llm.requests.length;
    const second = await mentionBot(running, 'C0BUDGET', '大阪の天気は？');
    const [answer] = await answered(running, 'C0BUDGET', second.ts);
    expect(answer?.text).toMatch(/faster than this workspace allows \(1 questions a minute\)/);
    expect(running.llm.requests.length).toBe(modelCalls);
  }, 60_000);
});
