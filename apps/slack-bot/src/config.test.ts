import { describe, expect, it } from 'vitest';
import { BotConfigError, botScopes, readBotConfig } from './config.js';

const base = { SLACK_SIGNING_SECRET: 'signing-secret-0123' };
const oauth = {
  SLACK_CLIENT_ID: '1111.2222',
  SLACK_CLIENT_SECRET: 'client-secret-0123456789',
  SLACK_STATE_SECRET: 'state-secret-0123456789',
};

describe('bot configuration: one workspace or many', () => {
  it('SLACK_BOT_TOKEN alone: the single-workspace mode, no OAuth', () => {
    const config = readBotConfig({ ...base, SLACK_BOT_TOKEN: 'xoxb-1' });
    expect(config.botToken).toBe('xoxb-1');
    expect(config.oauth).toBeUndefined();
  });

  it('the three OAuth variables turn OAuth on, asking for the manifest’s scopes; no bot token needed', () => {
    const config = readBotConfig({ ...base, ...oauth });
    expect(config.oauth).toEqual({
      clientId: oauth.SLACK_CLIENT_ID,
      clientSecret: oauth.SLACK_CLIENT_SECRET,
      stateSecret: oauth.SLACK_STATE_SECRET,
      scopes: botScopes,
    });
    expect(config.botToken).toBeUndefined();
    expect(
      readBotConfig({
        ...base,
        ...oauth,
        SLACK_SCOPES: 'chat:write, commands',
        SLACK_REDIRECT_URI: 'https://bot.example.com/slack/oauth_redirect',
      }).oauth,
    ).toMatchObject({
      scopes: ['chat:write', 'commands'],
      redirectUri: 'https://bot.example.com/slack/oauth_redirect',
    });
  });

  it('a partial OAuth setting names what is missing, never a value', () => {
    const attempt = () =>
      readBotConfig({ ...base, SLACK_BOT_TOKEN: 'xoxb-1', SLACK_CLIENT_ID: oauth.SLACK_CLIENT_ID });
    expect(attempt).toThrow(BotConfigError);
    expect(attempt).toThrow(/^SLACK_CLIENT_SECRET and SLACK_STATE_SECRET are not set/);
    expect(() => readBotConfig({ ...base, ...oauth, SLACK_REDIRECT_URI: 'bot.example.com' })).toThrow(
      /SLACK_REDIRECT_URI must be a URL/,
    );
  });

  it('neither a bot token nor OAuth: the error names both ways', () => {
    expect(() => readBotConfig(base)).toThrow(
      /SLACK_BOT_TOKEN is not set .*SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET/,
    );
  });
});
