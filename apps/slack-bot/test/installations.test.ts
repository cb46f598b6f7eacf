import { rmSync } from 'node:fs';
import { openStore, type Store } from '@ai-assistant/store';
import { rowsMentioning } from '@ai-assistant/store/testing';
import { embeddedStoreFolder } from '@ai-assistant/test-kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  findInstallation,
  forgetInstallation,
  installationId,
  saveInstallation,
} from '../src/slack/installations.js';

const botToken = 'xoxb-T1-bot-token-never-in-clear';

const installation = (team: string, token: string) =>
  JSON.stringify({ team: { id: team }, bot: { token, userId: `U_BOT_${team}`, scopes: ['chat:write'] } });

describe('Slack installations in the store', () => {
  let store: Store;
  let dataDir: string;
  beforeEach(async () => {
    dataDir = embeddedStoreFolder('installations-');
    store = await openStore({ dataDir, env: {} });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('ids: `T:<team>` for a workspace, `E:<enterprise>` for an org-wide install, none without either', () => {
    expect(installationId({ teamId: 'T1', enterpriseId: 'E1', isEnterpriseInstall: false })).toBe('T:T1');
    expect(installationId({ teamId: 'T1', enterpriseId: 'E1', isEnterpriseInstall: true })).toBe('E:E1');
    expect(installationId({ teamId: 'T1', isEnterpriseInstall: true })).toBeUndefined();
    expect(installationId({ isEnterpriseInstall: false })).toBeUndefined();
  });

  it('keeps an installation per workspace, its tokens encrypted at rest', async () => {
    await saveInstallation(store, {
      teamId: 'T1',
      isEnterpriseInstall: false,
      data: installation('T1', botToken),
    });
    const found = await findInstallation(store, { teamId: 'T1', isEnterpriseInstall: false });
    expect(JSON.parse(found ?? '{}').bot.token).toBe(botToken);
    expect(await findInstallation(store, { teamId: 'T2', isEnterpriseInstall: false })).toBeUndefined();
    expect(await rowsMentioning(store, botToken)).toEqual([]);
  });

  it('an org-wide (Enterprise Grid) install is found by its enterprise, for any of its workspaces', async () => {
    await saveInstallation(store, {
      enterpriseId: 'E1',
      isEnterpriseInstall: true,
      data: installation('E1', 'xoxb-E1-org-token'),
    });
    const query = { enterpriseId: 'E1', teamId: 'T_ANY', isEnterpriseInstall: true };
    expect(JSON.parse((await findInstallation(store, query)) ?? '{}').bot.token).toBe('xoxb-E1-org-token');
    expect(await findInstallation(store, { ...query, isEnterpriseInstall: false })).toBeUndefined();
  });

  it('forgetting an installation leaves nothing of the workspace in any table', async () => {
    await saveInstallation(store, {
      teamId: 'TGONE',
      isEnterpriseInstall: false,
      data: installation('TGONE', botToken),
    });
    await saveInstallation(store, {
      teamId: 'TKEPT',
      isEnterpriseInstall: false,
      data: installation('TKEPT', 'xoxb-T2'),
    });
    await store.credentials.put('TGONE', 'U_ALICE', 'github', 'ghp_alice');
    await store.workspaces.setEnabled('TGONE', 'weather', false, 'U_ADMIN');
    await store.coordination.claim({
      id: 'Ev1',
      workspace: 'TGONE',
      thread: 'TGONE:C1:1.000100',
      order: 1_000_100,
    });
    await store.credentials.put('TKEPT', 'U_ALICE', 'github', 'ghp_kept');
    await store.coordination.claim({
      id: 'Ev2',
      workspace: 'TKEPT',
      thread: 'TKEPT:C9:1.000100',
      order: 1_000_100,
    });

    expect(await forgetInstallation(store, { teamId: 'TGONE', isEnterpriseInstall: false })).toEqual([
      'TGONE',
    ]);
    expect(await rowsMentioning(store, 'TGONE')).toEqual([]);
    expect((await store.credentials.of('TKEPT', 'U_ALICE')).secrets).toEqual({ github: 'ghp_kept' });
    expect(await findInstallation(store, { teamId: 'TKEPT', isEnterpriseInstall: false })).toBeDefined();
    // Found by its thread key: a short id like "Ev2" can turn up by chance inside a ciphertext.
    expect(await rowsMentioning(store, 'TKEPT:C9:1.000100')).toHaveLength(1);
  });

  it('forgetting an org-wide install deletes every workspace of the organisation', async () => {
    await saveInstallation(store, {
      enterpriseId: 'EGONE',
      isEnterpriseInstall: true,
      data: installation('EGONE', 'xoxb-EGONE'),
    });
    // A workspace install inside the organisation is one of its workspaces too.
    await saveInstallation(store, {
      teamId: 'TGONE_C',
      enterpriseId: 'EGONE',
      isEnterpriseInstall: false,
      data: installation('TGONE_C', 'xoxb-TGONE_C'),
    });
    await store.workspaces.ensure('TGONE_A', 'EGONE');
    await store.workspaces.ensure('TGONE_B', 'EGONE');
    await store.credentials.put('TGONE_A', 'U_ALICE', 'github', 'ghp_a');
    await store.credentials.put('T_OTHER', 'U_ALICE', 'github', 'ghp_other');
    const gone = await forgetInstallation(store, {
      enterpriseId: 'EGONE',
      teamId: 'TGONE_A',
      isEnterpriseInstall: true,
    });
    expect(gone.sort()).toEqual(['TGONE_A', 'TGONE_B', 'TGONE_C']);
    expect(await rowsMentioning(store, 'EGONE')).toEqual([]);
    expect(await rowsMentioning(store, 'TGONE_')).toEqual([]);
    expect((await store.credentials.of('T_OTHER', 'U_ALICE')).secrets).toEqual({ github: 'ghp_other' });
  });
});
