import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JmaClient, JmaError } from '../src/jma/client.js';
import { nextIssueTime } from '../src/jma/time.js';
import { type FakeJma, startFakeJma } from '../src/testing/fake-jma.js';

const forecastPath = '/bosai/forecast/data/forecast/130000.json';

describe('JMA client caching', () => {
  let jma: FakeJma;
  beforeAll(async () => {
    jma = await startFakeJma();
  });
  afterAll(() => jma?.close());

  it('concurrent requests for one office share one fetch; the result is cached until the next issue', async () => {
    jma.reset();
    let now = new Date('2026-03-12T05:30:00+09:00');
    const client = new JmaClient({ baseUrl: jma.baseUrl, now: () => now });
    const results = await Promise.all(Array.from({ length: 10 }, () => client.forecast('130000')));
    expect(new Set(results).size).toBe(1);
    expect(jma.hits.get(forecastPath)).toBe(1);
    now = new Date('2026-03-12T05:50:00+09:00');
    await client.forecast('130000');
    expect(jma.hits.get(forecastPath)).toBe(1);
    // 30 minutes is the longest a forecast is kept, even before the next issue (11:00).
    now = new Date('2026-03-12T06:01:00+09:00');
    await client.forecast('130000');
    expect(jma.hits.get(forecastPath)).toBe(2);
    await client.close();
  });

  it('const tables are kept 24 hours', async () => {
    jma.reset();
    let now = new Date('2026-03-12T05:30:00+09:00');
    const client = new JmaClient({ baseUrl: jma.baseUrl, now: () => now });
    await client.areaTable();
    now = new Date('2026-03-13T05:00:00+09:00');
    await client.areaTable();
    expect(jma.hits.get('/bosai/common/const/area.json')).toBe(1);
    now = new Date('2026-03-13T05:31:00+09:00');
    await client.areaTable();
    expect(jma.hits.get('/bosai/common/const/area.json')).toBe(2);
    await client.close();
  });

  it('a failed fetch is not cached, and an unreachable JMA is a JMA_UNREACHABLE error', async () => {
    jma.reset();
    jma.setBehaviour(/forecast\/270000/, '500');
    const client = new JmaClient({ baseUrl: jma.baseUrl });
    await expect(client.forecast('270000')).rejects.toMatchObject({ code: 'JMA_BAD_STATUS', status: 500 });
    expect(jma.hits.get('/bosai/forecast/data/forecast/270000.json')).toBe(2); // a 5xx is retried once
    jma.setBehaviour(/forecast\/380000/, '404');
    await expect(client.forecast('380000')).rejects.toMatchObject({ status: 404 });
    expect(jma.hits.get('/bosai/forecast/data/forecast/380000.json')).toBe(1); // a 4xx is not
    jma.reset();
    await expect(client.forecast('270000')).resolves.toBeDefined();
    await client.close();
    const offline = new JmaClient({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 500 });
    await expect(offline.forecast('130000')).rejects.toBeInstanceOf(JmaError);
    await expect(offline.forecast('130000')).rejects.toMatchObject({ code: 'JMA_UNREACHABLE' });
    await offline.close();
  });
});

describe('JMA issue schedule', () => {
  it.each([
    ['2026-03-12T04:59:00+09:00', '2026-03-12T05:00:00+09:00'],
    ['2026-03-12T05:00:00+09:00', '2026-03-12T11:00:00+09:00'],
    ['2026-03-12T16:00:00+09:00', '2026-03-12T17:00:00+09:00'],
    ['2026-03-12T23:30:00+09:00', '2026-03-13T05:00:00+09:00'],
  ])('after %s the next issue is %s', (now, next) => {
    expect(nextIssueTime(new Date(now)).toISOString()).toBe(new Date(next).toISOString());
  });
});
