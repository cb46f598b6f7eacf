import type { Logger } from '@ai-assistant/host-core';
import type { Store } from '@ai-assistant/store';
import type { Installation, InstallationQuery, InstallationStore } from '@slack/bolt';

type AnyInstallation = Installation<'v1' | 'v2', boolean>;

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
 * Bolt's installation store on the assistant's store: one row per workspace (or per organisation for
 * an org-wide install), the tokens encrypted like every credential. Each token read or written is handed
 * to `onToken` (the app's redactor), so it can never reach a log.
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
    await this.store.saveInstallation({
      isEnterpriseInstall: installation.isEnterpriseInstall === true,
      ...(teamId ? { teamId } : {}),
      ...(enterpriseId ? { enterpriseId } : {}),
      ...(installation.bot?.userId ? { botUserId: installation.bot.userId } : {}),
      ...(installation.bot?.id ? { botId: installation.bot.id } : {}),
      ...(installation.bot?.scopes ? { scopes: installation.bot.scopes } : {}),
      ...(installation.user?.id ? { installerUserId: installation.user.id } : {}),
      data: JSON.stringify(installation),
    });
    this.logger.info(
      { team: teamId, enterprise: enterpriseId, orgWide: installation.isEnterpriseInstall === true },
      'installed in a workspace',
    );
  }

  async fetchInstallation(query: InstallationQuery<boolean>): Promise<AnyInstallation> {
    const data = await this.store.findInstallation(storeQuery(query));
    if (!data)
      throw new Error(
        `no installation for ${query.isEnterpriseInstall ? `organisation ${query.enterpriseId}` : `workspace ${query.teamId}`}`,
      );
    const installation = JSON.parse(data) as AnyInstallation;
    for (const token of tokensOf(installation)) this.onToken(token);
    return installation;
  }

  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    await this.store.deleteInstallation(storeQuery(query));
  }
}

/** Bolt's query as the store's: an org-wide install by its enterprise, else the workspace. */
export function storeQuery(query: {
  teamId?: string | undefined;
  enterpriseId?: string | undefined;
  isEnterpriseInstall?: boolean | undefined;
}) {
  return {
    isEnterpriseInstall: query.isEnterpriseInstall === true,
    ...(query.teamId ? { teamId: query.teamId } : {}),
    ...(query.enterpriseId ? { enterpriseId: query.enterpriseId } : {}),
  };
}
