#!/usr/bin/env node
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { parseCommandLine, usage } from './cli.js';
import { defaultMaxFileBytes } from './documents.js';
import { defaultCacheDir, Embeddings } from './embeddings.js';
import { serveHttp } from './http.js';
import { KnowledgeBase } from './knowledge-base.js';
import { stderrLogger } from './log.js';
import { sessionServers } from './server.js';
import { version } from './version.js';

async function main(): Promise<void> {
  const command = parseCommandLine(process.argv.slice(2));
  if (command.kind === 'help') return void process.stdout.write(usage);
  if (command.kind === 'version') return void process.stdout.write(`${version}\n`);
  if (command.kind === 'usage-error') {
    process.stderr.write(`mcp-server-knowledge: ${command.message}\n\n${usage}`);
    process.exitCode = 2;
    return;
  }
  const folder = resolve(
    command.docs ?? process.env.KNOWLEDGE_DIR ?? fileURLToPath(new URL('../corpus', import.meta.url)),
  );
  if (!existsSync(folder) || !statSync(folder).isDirectory()) {
    process.stderr.write(`mcp-server-knowledge: ${folder} is not a folder (set --docs or KNOWLEDGE_DIR)\n`);
    process.exitCode = 2;
    return;
  }
  const logger = stderrLogger({
    quiet: process.env.LOG_LEVEL === 'warn' || process.env.LOG_LEVEL === 'error',
  });
  const maxFileBytes = Number(process.env.KNOWLEDGE_MAX_FILE_BYTES || defaultMaxFileBytes);
  if (!Number.isInteger(maxFileBytes) || maxFileBytes < 1) {
    process.stderr.write('mcp-server-knowledge: KNOWLEDGE_MAX_FILE_BYTES must be a positive whole number\n');
    process.exitCode = 2;
    return;
  }
  // Hybrid search when an embeddings endpoint and model are given (flags win over variables).
  const embeddingsUrl = command.embeddings?.url ?? process.env.KNOWLEDGE_EMBEDDINGS_URL?.trim();
  const embeddingsModel = command.embeddings?.model ?? process.env.KNOWLEDGE_EMBEDDINGS_MODEL?.trim();
  if (Boolean(embeddingsUrl) !== Boolean(embeddingsModel)) {
    process.stderr.write(
      'mcp-server-knowledge: hybrid search needs both KNOWLEDGE_EMBEDDINGS_URL and KNOWLEDGE_EMBEDDINGS_MODEL (or --embeddings-url and --embeddings-model)\n',
    );
    process.exitCode = 2;
    return;
  }
  const apiKey = process.env.KNOWLEDGE_EMBEDDINGS_API_KEY?.trim();
  const embeddings =
    embeddingsUrl && embeddingsModel
      ? new Embeddings(
          {
            url: embeddingsUrl,
            model: embeddingsModel,
            ...(apiKey ? { apiKey } : {}),
            cacheDir:
              command.embeddings?.cacheDir ??
              (process.env.KNOWLEDGE_CACHE_DIR?.trim() || defaultCacheDir(process.env)),
          },
          logger,
        )
      : undefined;
  const knowledge = new KnowledgeBase(folder, logger, { maxFileBytes }, embeddings);
  await knowledge.rebuild();
  const sessions = sessionServers(knowledge);
  const newServer = sessions.newServer;
  // A changed folder: rebuild, then tell every connected client its resource list changed.
  knowledge.watch(() => sessions.notifyResourcesChanged());

  let shutDown: () => Promise<void>;
  if (command.http) {
    const http = await serveHttp({ ...command.http, logger, newServer });
    logger.info('listening', { url: http.url, folder });
    shutDown = () => http.close();
  } else {
    const server = newServer();
    await server.connect(new StdioServerTransport());
    logger.info('serving on stdio', { version, folder });
    shutDown = () => server.close();
    process.stdin.once('end', () => void stop());
  }
  let stopping = false;
  async function stop(): Promise<void> {
    if (stopping) return;
    stopping = true;
    knowledge.close();
    await Promise.race([
      shutDown(),
      new Promise((resolvePromise) => setTimeout(resolvePromise, 2000).unref()),
    ]);
    process.exit(0);
  }
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  process.stderr.write(`mcp-server-knowledge: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
