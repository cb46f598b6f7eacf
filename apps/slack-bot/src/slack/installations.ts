import type { Logger } from '@ai-assistant/host-core';
import type { Store } from '@ai-assistant/store';
import type {
  InstallationQuery as BoltInstallationQuery,
  Installation,
  InstallationStore,
} from '@slack/bolt';

type AnyInstallation = Installation<'v1' | 'v2', boolean>;

/** The store's sealed-record kind of a Slack installation. */
const kind = 'installation';

/** Which installation: an org-wide one by its enterprise, else a workspace's by its team. */
export interface InstallationQuery {
  teamId?: string;
  enterpriseId?: string;
  isEnterpriseInstall: boolean;
}

/** An installation to store: where it is, and the whole of it as JSON (tokens included). */
export interface InstallationRecord extends InstallationQuery {
  data: string;
}

/**
 * The installation's record id: `E:<enterprise>` for an org-wide install, `T:<team>` otherwise;
 * undefined when the query names nothing. Rows stored before the store's sealed records kept these ids.
 */
export function installationId(query: InstallationQuery): string | undefined {
  if (query.isEnterpriseInstall) return query.enterpriseId ? `E:${query.enterpriseId}` : undefined;
  return query.teamId ? `T:${query.teamId}` : undefined;
}

/** Bolt's query (or an event's context) as ours: an org-wide install by its enterprise, else the workspace. */
export function storeQuery(query: {
  teamId?: string | undefined;
  enterpriseId?: string | undefined;
  isEnterpriseInstall?: boolean | undefined;
}): InstallationQuery {
  return {
    isEnterpriseInstall: query.isEnterpriseInstall === true,
    ...(query.teamId ? { teamId: query.teamId } : {}),
    ...(query.enterpriseId ? { enterpriseId: query.enterpriseId } : {}),
  };
}

/**
 * Stores (or replaces) an installation, encrypted. A workspace install belongs to its workspace (and is
 * deleted with it); an org-wide one to the organisation only. The workspace is recorded with its
 * organisation, so that uninstalling the organisation finds it.
 */
export async function saveInstallation(store: Store, record: InstallationRecord): Promise<void> {
  const id = installationId(record);
  if (!id) throw new Error('an installation needs a team id (or an enterprise id for an org-wide install)');
  await store.sealed.put(
    kind,
    id,
    {
      ...(record.teamId && !record.isEnterpriseInstall ? { workspace: record.teamId } : {}),
      ...(record.enterpriseId ? { organisation: record.enterpriseId } : {}),
    },
    record.data,
  );
  if (record.teamId) await store.workspaces.ensure(record.teamId, record.enterpriseId);
}

/** The stored installation's JSON, decrypted; undefined when there is none. */
export async function findInstallation(store: Store, query: InstallationQuery): Promise<string | undefined> {
  const id = installationId(query);
  return id ? store.sealed.get(kind, id) : undefined;
}

/** Deletes an installation only (the workspace's other data stays); whether there was one. */
export async function deleteInstallation(store: Store, query: InstallationQuery): Promise<boolean> {
  const id = installationId(query);
  return id ? store.sealed.delete(kind, id) : false;
}

/**
 * Forgets an uninstalled app: a workspace install takes its workspace with it (installation,
 * credentials, settings, claims); an org-wide install, every workspace recorded under the organisation
 * and the organisation's installation. Returns the workspaces deleted.
 */
export async function forgetInstallation(store: Store, query: InstallationQuery): Promise<string[]> {
  const workspaces = new Set<string>();
  // The event's own workspace goes in every case: under an org-wide install it is one of the org's.
  if (query.teamId) workspaces.add(query.teamId);
  if (query.isEnterpriseInstall && query.enterpriseId) {
    for (const workspace of await store.workspaces.inOrganisation(query.enterpriseId))
      workspaces.add(workspace);
    await store.sealed.delete(kind, `E:${query.enterpriseId}`);
  }
  for (const workspace of workspaces) await store.workspaces.delete(workspace);
  return [...workspaces];
}

/** The tokens of an installation, for the app's redactor. */
function tokensOf(installation: AnyInstallation): string[] {
  return [
    installation.bot?.token,
    installation.bot?.refreshToken,
    installation.user?.token,
    installation.user?.refreshToken,
  ].filter((token): token is string => typeof token === 'string' && token.length > 0);
}

/**
 * Bolt's installation store on the assistant's store: one sealed record per workspace (or per
 * organisation for an org-wide install), the tokens encrypted like every credential. Each token read or
 * written is handed to `onToken` (the app's redactor), so it can never reach a log.
 */
export class StoreInstallations implements InstallationStore {
  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly onToken: (token: string) => void = () => {},
  ) {}

  async storeInstallation<AuthVersion extends 'v1' | 'v2'>(
    installation: Installation<AuthVersion, boolean>,
  ): Promise<void> {
    for (const token of tokensOf(installation)) this.onToken(token);
    const enterpriseId = installation.enterprise?.id;
    const teamId = installation.team?.id;
    await saveInstallation(this.store, {
      ...storeQuery({ teamId, enterpriseId, isEnterpriseInstall: installation.isEnterpriseInstall }),
      data: JSON.stringify(installation),
    });
    this.logger.info(
      { team: teamId, enterprise: enterpriseId, orgWide: installation.isEnterpriseInstall === true },
      'installed in a workspace',
    );
  }

  async fetchInstallation(query: BoltInstallationQuery<boolean>): Promise<AnyInstallation> {
    const data = await findInstallation(this.store, storeQuery(query));
    if (!data)
      throw new Error(
        `no installation for ${query.isEnterpriseInstall ? `organisation ${query.enterpriseId}` : `workspace ${query.teamId}`}`,
      );
    const installation = JSON.parse(data) as AnyInstallation;
    for (const token of tokensOf(installation)) this.onToken(token);
    return installation;
  }

  async deleteInstallation(query: BoltInstallationQuery<boolean>): Promise<void> {
    await deleteInstallation(this.store, storeQuery(query));
  }
}
