import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { botScopes } from './config.js';

const manifest = readFileSync(resolve(import.meta.dirname, '..', 'manifest.yml'), 'utf8');

/** The `- item` lines of the list that follows `heading:` (comments dropped). */
function listAfter(heading: string): string[] {
  const lines = manifest.split('\n');
  const start = lines.findIndex((line) => line.trim() === `${heading}:`);
  const items: string[] = [];
  for (const line of lines.slice(start + 1)) {
    const item = /^\s*-\s+([^\s#]+)/.exec(line)?.[1];
    if (!item) break;
    items.push(item);
  }
  return items;
}

describe('manifest.yml', () => {
  it('asks at install for the scopes the OAuth flow asks for', () => {
    expect(listAfter('bot').sort()).toEqual([...botScopes].sort());
  });

  it('is an agent (agent_view with its agent_description) greeting in the Messages tab', () => {
    expect(manifest).toMatch(/^ {2}agent_view:\n {4}agent_description: \S.+$/m);
    expect(manifest).not.toMatch(/^\s*assistant_view:/m);
    expect(manifest).toMatch(/^\s*messages_tab_enabled: true/m);
    expect(listAfter('bot_events')).toEqual(
      expect.arrayContaining(['app_home_opened', 'message.im', 'message.channels', 'app_mention']),
    );
    // Status, suggested prompts and titles still go through assistant.threads.*.
    expect(listAfter('bot')).toContain('assistant:write');
  });

  it('subscribes to the uninstall events and names the OAuth redirect', () => {
    expect(listAfter('bot_events')).toEqual(expect.arrayContaining(['app_uninstalled', 'tokens_revoked']));
    expect(listAfter('redirect_urls')[0]).toMatch(/^https:\/\/.+\/slack\/oauth_redirect$/);
  });
});
