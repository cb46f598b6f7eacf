import { describe, expect, it } from 'vitest';
import { bearerChallenge } from './sdk-auth.js';

describe('a Bearer challenge (RFC 6750 §3)', () => {
  it('reads quoted and bare parameters, escapes included', () => {
    expect(
      bearerChallenge(
        'Bearer error="insufficient_scope", scope="mcp:read mcp:write", resource_metadata="https://x/.well-known/oauth-protected-resource/mcp", realm=mcp, error_description="a \\"quoted\\" word"',
      ),
    ).toEqual({
      error: 'insufficient_scope',
      scope: 'mcp:read mcp:write',
      resource_metadata: 'https://x/.well-known/oauth-protected-resource/mcp',
      realm: 'mcp',
      error_description: 'a "quoted" word',
    });
  });

  it('another scheme, or none, is no Bearer challenge', () => {
    expect(bearerChallenge('Basic realm="x"')).toEqual({});
    expect(bearerChallenge(null)).toEqual({});
  });
});
