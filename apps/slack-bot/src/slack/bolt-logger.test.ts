import { recordingLogger } from '@ai-assistant/test-kit';
import { describe, expect, it } from 'vitest';
import { boltLogger } from './bolt-logger.js';

describe("Bolt's logger", () => {
  it('an unreachable Slack API is said once, clearly, with its URL, instead of a bare line per retry', () => {
    const logger = recordingLogger();
    let clock = 0;
    const bolt = boltLogger(logger, 'http://127.0.0.1:9/api/', () => clock);
    for (let attempt = 0; attempt < 12; attempt++) {
      bolt.warn('http request failed', 'fetch failed');
      clock += 5_000;
    }
    const loud = logger.lines.filter((line) => line.level === 'warn' || line.level === 'error');
    // Before: 12 warnings "http request failed fetch failed". After: 2, then one error that says what to do.
    expect(loud.map((line) => line.level)).toEqual(['warn', 'warn', 'error']);
    expect(loud[2]?.message).toMatch(
      /cannot reach Slack's API at http:\/\/127\.0\.0\.1:9\/api\/ \(3 tries in a row; still retrying\)\. Check .*network.*SLACK_API_URL/,
    );
    // A response from Slack re-arms it: the next outage is reported again.
    bolt.debug('http response received');
    for (let attempt = 0; attempt < 3; attempt++) bolt.warn('http request failed', 'fetch failed');
    expect(logger.lines.filter((line) => line.level === 'error')).toHaveLength(2);
  });

  it('keeps other warnings as they are and cuts payload lines', () => {
    const logger = recordingLogger();
    const bolt = boltLogger(logger, 'https://slack.com/api/');
    bolt.warn('something else');
    bolt.debug('http request body: {"token":"xoxb-secret"}');
    expect(logger.lines.map((line) => line.message)).toEqual([
      'something else',
      'http request body [payload omitted]',
    ]);
  });
});
