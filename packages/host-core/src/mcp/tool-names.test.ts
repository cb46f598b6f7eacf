import { describe, expect, it } from 'vitest';
import { encodeToolName } from './tool-names.js';

const valid = /^[a-zA-Z0-9_-]{1,64}$/;

describe('tool names offered to the model', () => {
  it('keeps already valid names readable', () => {
    expect(encodeToolName('weather', 'get_weather')).toBe('mcp__weather__get_weather');
    expect(encodeToolName('everything', 'get-sum')).toBe('mcp__everything__get-sum');
  });

  it('makes long and unusual names valid with a stable hash', () => {
    const long = encodeToolName('kb', 'x'.repeat(70));
    expect(long).toMatch(valid);
    expect(long).toBe(encodeToolName('kb', 'x'.repeat(70)));
    expect(encodeToolName('kb', 'search.docs')).toMatch(/^mcp__kb__search_docs_[0-9a-f]{8}$/);
    expect(encodeToolName('kb', '検索')).toMatch(valid);
  });

  it('never maps two different pairs to one name', () => {
    const pairs: Array<[string, string]> = [
      ['a', 'b__c'],
      ['a__b', 'c'],
      ['kb', 'search.docs'],
      ['kb', 'search_docs'],
      ['kb', 'search docs'],
      ['kb', `${'y'.repeat(60)}1`],
      ['kb', `${'y'.repeat(60)}2`],
    ];
    const names = pairs.map(([server, tool]) => encodeToolName(server, tool));
    expect(new Set(names).size).toBe(pairs.length);
    expect(names.every((name) => valid.test(name))).toBe(true);
  });

  it('#43.20 a server name ending in "_" or a tool name that looks hashed never reads as another pair', () => {
    const pairs: Array<[string, string]> = [
      ['ops', '_notify'],
      ['ops_', 'notify'],
      ['ops__', 'notify'],
      ['ops', '__notify'],
      ['ops', `_notify_${encodeToolName('ops_', 'notify').slice(-8)}`],
      ['kb', 'search.docs'],
      ['kb', `search_docs_${encodeToolName('kb', 'search.docs').slice(-8)}`],
    ];
    const names = pairs.map(([server, tool]) => encodeToolName(server, tool));
    expect(new Set(names).size).toBe(pairs.length);
    expect(names.every((name) => valid.test(name))).toBe(true);
    // Plain pairs keep their readable names.
    expect(encodeToolName('ops', '_notify')).toBe('mcp__ops___notify');
    expect(encodeToolName('ops', 'notify_v2')).toBe('mcp__ops__notify_v2');
  });
});
