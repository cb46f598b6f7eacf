import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import {
  type FakeReply,
  type FakeRequest,
  type FakeVendor,
  type PetApi,
  seedEmbeddedStore,
  startFakeVendor,
  startPetApi,
} from '@ai-assistant/test-kit';

const entry = resolve(import.meta.dirname, '..', 'dist', 'main.js');

/** Runs the built chat in a temporary folder with `input` on stdin; resolves with its output once it exits (killed after 100 s). */
export function run(args: string[], env: Record<string, string>, input?: string) {
  const workdir = mkdtempSync(resolve(tmpdir(), 'chat-'));
  // The chat's default store is `.data` in its folder: start it from an initialised database, as most
  // runs open it (see seedEmbeddedStore).
  if (!env.DATA_DIR && !env.DATABASE_URL) seedEmbeddedStore(resolve(workdir, '.data'));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolvePromise) => {
    const child = spawn(process.execPath, [entry, ...args], {
      cwd: workdir,
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    // A safety net only: a test waits for the chat to exit, however slow a busy machine makes it.
    const timer = setTimeout(() => child.kill('SIGKILL'), 100_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      rmSync(workdir, { recursive: true, force: true, maxRetries: 5 });
      resolvePromise({ code, stdout, stderr });
    });
    if (input !== undefined) child.stdin.end(input);
    else child.stdin.end();
  });
}

/** A fake model and a loopback REST API served to the chat as one OpenAPI server, and the chat's env. */
export interface OpenApiChat {
  llm: FakeVendor;
  api: PetApi;
  folder: string;
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Starts the model (answering with `model`) and the API behind `spec`, the server called `server`. */
export async function startOpenApiChat(
  server: string,
  spec: unknown,
  model: (request: FakeRequest) => FakeReply,
): Promise<OpenApiChat> {
  const [llm, api] = await Promise.all([startFakeVendor(), startPetApi()]);
  llm.respondWith(model);
  const folder = mkdtempSync(resolve(tmpdir(), `chat-${server}-`));
  const path = resolve(folder, 'mcp_servers.json');
  writeFileSync(
    path,
    JSON.stringify({
      mcpServers: { [server]: { type: 'openapi', openapi_spec: spec, openapi_base_url: api.url } },
    }),
  );
  const env = {
    OPENAI_API_KEY: 'sk-cli-test-0123456',
    OPENAI_BASE_URL: llm.baseURL,
    LLM_MAX_RETRIES: '0',
    MCP_ENABLED: 'true',
    MCP_SERVERS_CONFIG: path,
  };
  return {
    llm,
    api,
    folder,
    env,
    async close() {
      await Promise.all([llm.close(), api.close()]);
      rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}
