import { describe, expect, it } from 'vitest';
import { credentialProblem } from '../src/credential-check.js';

describe('credentialProblem', () => {
  it('refuses control characters, values too short to be a token, and one character repeated', () => {
    expect(credentialProblem('ghp_abc\r\nX-Evil: 1')).toMatch(/control character/);
    expect(credentialProblem('tok\u0000en-123456')).toMatch(/control character/);
    // The token "https:" once redacted every URL of every workspace.
    expect(credentialProblem('https:')).toMatch(/too short .*6 characters/);
    expect(credentialProblem('aaaaaaaaaaaa')).toMatch(/repeats too few characters/);
  });

  it('accepts real token shapes', () => {
    for (const token of [
      'ghp_16C7e42F292c6912E7710c838347Ae178B4a',
      'lin_api_9f8e7d6c5b4a',
      'xoxp-1234-5678-abcd',
    ])
      expect(credentialProblem(token)).toBeUndefined();
  });
});
