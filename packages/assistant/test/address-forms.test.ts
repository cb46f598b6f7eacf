import { lookup } from 'node:dns/promises';
import { rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { isRefusedAddress } from '@ai-assistant/host-core/internal';
import { openStore, type Store } from '@ai-assistant/store';
import { embeddedStoreFolder, startStatelessServer } from '@ai-assistant/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { People } from '../src/people.js';
import type { WorkspaceServerError } from '../src/workspace-servers.js';
import { echoServer, managerPool, nodeServer } from './helpers.js';

// IPv4 written inside IPv6 in the forms the guard missed, and what an admin's Test says when a name
// is refused at the moment it is dialled.
describe('addresses a workspace’s server may not reach', () => {
  const pool = managerPool();
  const admin = { workspace: 'T1', user: 'U_ADMIN' };
  let dataDir: string;
  let store: Store;
  let remote: { url: string; close(): void };
  // Every request that reached the server: none may.
  const reached: string[] = [];

  beforeAll(async () => {
    dataDir = embeddedStoreFolder('address-forms-');
    store = await openStore({ dataDir, env: {} });
    remote = await startStatelessServer(
      () => {},
      (request) => {
        reached.push(`${request.method} ${request.url}`);
        return true;
      },
    );
  }, 60_000);
  afterEach(() => pool.closeAll());
  afterAll(async () => {
    remote?.close();
    await store?.close();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
  });

  const start = async () =>
    new People(await pool.connect([nodeServer('echo', echoServer)]), store, { workspaceServersAllow: '' });
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error as WorkspaceServerError,
    );

  it('#43.22 IPv4-compatible (::/96) and IPv4-translated (::ffff:0:0:0/96) addresses are refused', async () => {
    const people = await start();
    const port = new URL(remote.url).port;
    for (const host of [
      '[::127.0.0.1]',
      '[::ffff:0:127.0.0.1]',
      '[::7f00:1]',
      '[::ffff:0:a00:1]',
      '[::8.8.8.8]',
    ]) {
      const url = `http://${host}:${port}/mcp`;
      const error = await refusal(people.testServer(admin, { name: 'crm', kind: 'mcp', url, auth: 'none' }));
      expect(error?.message, url).toMatch(/is a loopback, private, link-local or metadata address/);
      expect(error?.field).toBe('url');
    }
    expect(reached).toEqual([]);
    for (const address of ['::127.0.0.1', '::ffff:0:127.0.0.1', '::ffff:0:0a00:0001', '::1.2.3.4', '::'])
      expect(isRefusedAddress(address), address).toBe(true);
    // The usual mapped form still reads the IPv4 inside; public addresses stay reachable.
    expect(isRefusedAddress('::ffff:10.0.0.1')).toBe(true);
    expect(isRefusedAddress('::ffff:93.184.216.34')).toBe(false);
    expect(isRefusedAddress('93.184.216.34')).toBe(false);
    expect(isRefusedAddress('2606:4700::1111')).toBe(false);
  });

  it('#43.22 a name refused when it is dialled: the Test names the address it resolved to', async () => {
    const people = await start();
    // This machine's own name passes the check of names and resolves to one of its own addresses
    // (loopback or private), which the dialler refuses.
    const name = hostname();
    const answers = (await lookup(name, { all: true })).map((answer) => answer.address);
    expect(answers.some(isRefusedAddress), `${name} resolves to ${answers.join(', ')}`).toBe(true);
    const url = `http://${name}:${new URL(remote.url).port}/mcp`;
    const error = await refusal(people.testServer(admin, { name: 'crm', kind: 'mcp', url, auth: 'none' }));
    expect(error?.field).toBe('url');
    expect(error?.message).toContain(`${name} resolves to `);
    expect(answers.some((address) => error?.message.includes(address))).toBe(true);
    expect(error?.message).toMatch(/loopback, private, link-local or metadata address/);
    expect(reached).toEqual([]);
  });
});
