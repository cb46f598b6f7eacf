import { silentLogger } from '@ai-assistant/chat-types';
import { describe, expect, it } from 'vitest';
import { ToolCallError } from '../errors.js';
import type { ToolHost } from '../tool-host.js';
import type { ChatEvent } from './chat-types.js';
import { describeFailure } from './tool-failures.js';

describe('a failed call as the model reads it', () => {
  const events: ChatEvent[] = [];
  const turn = {
    tools: [],
    host: { credentialHint: (server: string) => `/assistant connect ${server}` } as unknown as ToolHost,
    emit: (event: ChatEvent) => void events.push(event),
    logger: silentLogger,
  };

  it('#43.15 more access asked for (403 insufficient_scope): more permission, the scope, connect again; not "expired"', () => {
    events.length = 0;
    const text = describeFailure(
      'mcp__tracker__write',
      new ToolCallError('MISSING_CREDENTIALS', 'needs more permission', {
        tool: 'mcp__tracker__write',
        server: 'tracker',
        placeholders: ['token'],
        refused: 403,
        scope: 'mcp:write',
      }),
      turn,
    );
    expect(text).toContain('needs more permission than the user granted it');
    expect(text).toContain('"mcp:write"');
    expect(text).toContain('/assistant connect tracker');
    expect(text).not.toMatch(/expired|HTTP 401/);
    expect(events).toEqual([
      {
        type: 'credential_needed',
        server: 'tracker',
        name: 'mcp__tracker__write',
        refused: true,
        scope: 'mcp:write',
      },
    ]);
    // A refused credential is still told as one.
    events.length = 0;
    const refused = describeFailure(
      'mcp__tracker__write',
      new ToolCallError('MISSING_CREDENTIALS', 'refused', {
        tool: 'mcp__tracker__write',
        server: 'tracker',
        placeholders: ['token'],
        refused: 401,
      }),
      turn,
    );
    expect(refused).toContain("refused the user's own credential (HTTP 401)");
    expect(events).toEqual([
      { type: 'credential_needed', server: 'tracker', name: 'mcp__tracker__write', refused: true },
    ]);
  });
});
