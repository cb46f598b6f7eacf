import type { WorkspaceServer } from '@ai-assistant/assistant';
import { describe, expect, it } from 'vitest';
import { serverStateText } from './server-state.js';

const server = (extra: Partial<WorkspaceServer>): WorkspaceServer => ({
  name: 'github',
  transport: 'stdio',
  state: 'idle',
  toolCount: 26,
  approval: 'writes',
  personalCredential: false,
  enabledByDefault: true,
  enabled: true,
  connected: false,
  ...extra,
});

describe('a server’s state in words', () => {
  it('#42 an operator’s server started on first use is stopped until used, with its kept tools; a workspace’s is not open', () => {
    expect(serverStateText(server({}))).toBe('stopped until a question uses it, 26 tools');
    expect(
      serverStateText(
        server({
          toolCount: 1,
          added: {
            by: 'U1',
            at: '2026-11-27',
            kind: 'mcp',
            url: 'https://example.test/mcp',
            auth: 'none',
          },
        }),
      ),
    ).toBe('not open now (opens when a question uses it), 1 tool at its last Test');
  });
});
