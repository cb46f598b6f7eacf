import { type ChildProcess, spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { resolve } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client, SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const entry = resolve(import.meta.dirname, '..', 'dist', 'index.js');

describe('knowledge server over Streamable HTTP (--http), on the bundled example corpus', () => {
  let child: ChildProcess;
  let url: string;
  beforeAll(async () => {
    child = spawn(process.execPath, [entry, '--http', '--port', '0'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: process.env.PATH ?? '' },
    });
    url = await new Promise<string>((resolvePromise, reject) => {
      let stderr = '';
      const timer = setTimeout(() => reject(new Error(`did not start: ${stderr}`)), 15_000);
      child.stderr?.on('data', (chunk) => {
        stderr += chunk;
        const found = /"url":"([^"]+)"/.exec(stderr)?.[1];
        if (found) {
          clearTimeout(timer);
          resolvePromise(found);
        }
      });
    });
  });
  afterAll(async () => {
    child.kill('SIGTERM');
    await new Promise((resolvePromise) => child.once('exit', resolvePromise));
  });

  it('searches the example corpus and refuses a foreign Host header', async () => {
    const client = new Client({ name: 'http-test', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const result = (await client.callTool({
      name: 'search_knowledge',
      arguments: { query: '傘が必要' },
    })) as CallToolResult;
    expect((result.structuredContent as { results: Array<{ title: string }> }).results[0]?.title).toBe(
      '天気ツールの使い方',
    );
    await client.close();
    // fetch drops a Host header, so node:http sends the forged one.
    const status = await new Promise<number | undefined>((resolvePromise, reject) => {
      const request = httpRequest(
        url,
        { method: 'POST', headers: { host: 'attacker.example', 'content-type': 'application/json' } },
        (response) => {
          response.resume();
          resolvePromise(response.statusCode);
        },
      );
      request.on('error', reject);
      request.end('{}');
    });
    expect(status).toBe(403);
  });

  it('serves clients that only speak the legacy HTTP+SSE transport at /mcp/sse', async () => {
    const client = new Client({ name: 'sse-test', version: '0' });
    await client.connect(new SSEClientTransport(new URL(`${url}/sse`)));
    const result = (await client.callTool({
      name: 'search_knowledge',
      arguments: { query: '傘が必要' },
    })) as CallToolResult;
    expect((result.structuredContent as { results: Array<{ title: string }> }).results[0]?.title).toBe(
      '天気ツールの使い方',
    );
    await client.close();
  });
});
