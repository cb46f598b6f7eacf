import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { jmaFixturesDir } from './fixtures.js';

/** How the fake answers a path: the fixture, an error status, HTML, or never. */
export type FakeJmaBehaviour = 'ok' | '500' | '404' | 'html' | 'hang' | 'garbage-json';

/** Options of {@link startFakeJma}. */
export interface FakeJmaOptions {
  /** Folder of recorded responses (default: this package's `test/fixtures/jma`). */
  fixturesDir?: string;
  /** Office code → fixture file name; offices not listed use the default below. */
  forecasts?: Record<string, string>;
}

/** Default fixture per office (Tokyo: the 2026-03-12 05:00 issue). */
export const defaultForecastFixtures: Record<string, string> = {
  '011000': 'forecast-011000.json',
  '014100': 'forecast-014100.json',
  '070000': 'forecast-070000.json',
  '130000': 'forecast-130000-20260312.json',
  '210000': 'forecast-210000.json',
  '230000': 'forecast-230000-20220915.json',
  '270000': 'forecast-270000.json',
  '380000': 'forecast-380000.json',
  '460100': 'forecast-460100-20260812.json',
  '471000': 'forecast-471000.json',
};

const constFiles: Record<string, string> = {
  '/bosai/common/const/area.json': 'area.json',
  '/bosai/forecast/const/forecast_area.json': 'const-forecast_area.json',
  '/bosai/forecast/const/week_area.json': 'const-week_area.json',
  '/bosai/forecast/const/week_area05.json': 'const-week_area05.json',
  '/bosai/forecast/const/week_area_name.json': 'const-week_area_name.json',
};

/** A loopback stand-in for www.jma.go.jp serving the recorded responses byte for byte. */
export interface FakeJma {
  baseUrl: string;
  /** Requests received, by path. */
  hits: Map<string, number>;
  /** Makes every path matching `pattern` behave as given (until reset). */
  setBehaviour(pattern: RegExp, behaviour: FakeJmaBehaviour): void;
  /** Serves another fixture for an office. */
  setForecast(office: string, fixture: string): void;
  reset(): void;
  close(): Promise<void>;
}

export async function startFakeJma(options: FakeJmaOptions = {}): Promise<FakeJma> {
  const fixturesDir = options.fixturesDir ?? jmaFixturesDir;
  const forecasts = { ...defaultForecastFixtures, ...options.forecasts };
  const behaviours: Array<[RegExp, FakeJmaBehaviour]> = [];
  const hits = new Map<string, number>();
  const cache = new Map<string, Buffer>();
  const file = (name: string) => {
    let body = cache.get(name);
    if (!body) {
      body = readFileSync(join(fixturesDir, name));
      cache.set(name, body);
    }
    return body;
  };
  const send = (response: ServerResponse, status: number, type: string, body: string | Buffer) => {
    response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    response.end(body);
  };

  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://fake').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const behaviour = behaviours.find(([pattern]) => pattern.test(path))?.[1] ?? 'ok';
    switch (behaviour) {
      case 'hang':
        return; // never answers; the client's timeout must fire
      case '500':
        return send(response, 500, 'text/plain', 'Internal Server Error');
      case '404':
        return send(response, 404, 'text/html', '<html><body>404 Not Found</body></html>');
      case 'html':
        return send(
          response,
          200,
          'text/html; charset=utf-8',
          '<!DOCTYPE html><html><body>メンテナンス中</body></html>',
        );
      case 'garbage-json':
        return send(response, 200, 'application/json', '{"unexpected": true}');
    }
    const constant = constFiles[path];
    const office = /^\/bosai\/forecast\/data\/forecast\/(\d{6})\.json$/.exec(path)?.[1];
    const fixture = constant ?? (office ? forecasts[office] : undefined);
    if (!fixture) return send(response, 404, 'text/html', '<html><body>404 Not Found</body></html>');
    send(response, 200, 'application/json', file(fixture));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    hits,
    setBehaviour(pattern, behaviour) {
      behaviours.unshift([pattern, behaviour]);
    },
    setForecast(office, fixture) {
      forecasts[office] = fixture;
    },
    reset() {
      behaviours.length = 0;
      hits.clear();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
