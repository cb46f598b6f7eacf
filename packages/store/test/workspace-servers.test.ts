import { expect, it } from 'vitest';
import { rowsMentioning } from '../src/testing.js';
import { onBothEngines } from './engines.js';

onBothEngines(
  'what a workspace’s admins keep: their servers, approval policies and budgets',
  ({ fresh, open }) => {
    it('servers are sealed per workspace; policies and budgets read in one go; all gone with the workspace', async () => {
      const store = await open(fresh());
      const secret = 'crm-secret-0123456789';
      const crm = JSON.stringify({ name: 'crm', url: 'https://crm.example/mcp', auth: 'secret', secret });
      await store.workspaceServers.put('T1', 'crm', crm);
      await store.workspaceServers.put('T2', 'wiki', '{"name":"wiki"}');
      expect(await store.workspaceServers.list('T1')).toEqual([{ name: 'crm', value: crm }]);
      expect((await store.workspaceServers.list('T2')).map((server) => server.name)).toEqual(['wiki']);
      // Encrypted whole: neither the secret nor the address is readable in any table.
      expect(await rowsMentioning(store, secret)).toEqual([]);
      expect(await rowsMentioning(store, 'crm.example')).toEqual([]);

      await store.workspaces.setEnabled('T1', 'weather', false, 'U_ADMIN');
      await store.workspaces.setApproval('T1', 'crm', 'always', 'U_ADMIN');
      await store.workspaces.setApproval('T1', 'weather', 'writes', 'U_ADMIN');
      const policies = await store.workspaces.policies('T1');
      expect([...policies.enabled]).toEqual([['weather', false]]);
      expect(Object.fromEntries(policies.approvals)).toEqual({ crm: 'always', weather: 'writes' });
      // A row holding only an approval leaves the server to the catalog's default.
      expect((await store.workspaces.settings('T1')).has('crm')).toBe(false);
      await store.workspaces.setApproval('T1', 'weather', null, 'U_ADMIN');
      expect((await store.workspaces.policies('T1')).approvals.has('weather')).toBe(false);
      expect((await store.workspaces.policies('T1')).enabled.get('weather')).toBe(false);

      await store.workspaces.setLimits('T1', { tokensPerPersonDay: 5000 });
      expect(await store.workspaces.limits('T1')).toEqual({ tokensPerPersonDay: 5000 });
      await store.workspaces.setLimits('T1', {});
      expect(await store.workspaces.limits('T1')).toBeUndefined();
      await store.workspaces.setLimits('T1', { questionsPerPersonMinute: 3 });

      expect(await store.workspaceServers.delete('T1', 'nothing')).toBe(false);
      await store.workspaces.forgetServer('T1', 'crm');
      expect((await store.workspaces.policies('T1')).approvals.has('crm')).toBe(false);

      await store.workspaces.delete('T1');
      expect(await store.workspaceServers.list('T1')).toEqual([]);
      expect(await store.workspaces.limits('T1')).toBeUndefined();
      expect((await store.workspaces.policies('T1')).enabled.size).toBe(0);
      expect((await store.workspaceServers.list('T2')).length).toBe(1);
    });
  },
);
