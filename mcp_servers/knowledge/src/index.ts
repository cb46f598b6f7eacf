#!/usr/bin/env node
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runServer, UsageError } from '@ai-assistant/mcp-server-kit';
import { defaultPort, options, usage } from './cli.js';
import { defaultMaxFileBytes } from './documents.js';
import { defaultCacheDir, Embeddings } from './embeddings.js';
import { KnowledgeBase } from './knowledge-base.js';
import { sessionServers } from './server.js';
import { version } from './version.js';

/** A string option's value, if given. */
const text = (value: string | boolean | undefined) => (typeof value === 'string' ? value : undefined);

await runServer({
  name: 'mcp-server-knowledge',
  version,
  usage,
  defaultPort,
  options,
  async prepare({ values, logger }) {
    const folder = resolve(
      text(values.docs) ?? process.env.KNOWLEDGE_DIR ?? fileURLToPath(new URL('../corpus', import.meta.url)),
    );
    if (!existsSync(folder) || !statSync(folder).isDirectory())
      throw new UsageError(`${folder} is not a folder (set --docs or KNOWLEDGE_DIR)`);
    const maxFileBytes = Number(process.env.KNOWLEDGE_MAX_FILE_BYTES || defaultMaxFileBytes);
    if (!Number.isInteger(maxFileBytes) || maxFileBytes < 1)
      throw new UsageError('KNOWLEDGE_MAX_FILE_BYTES must be a positive whole number');
    // Hybrid search when an embeddings endpoint and model are given (flags win over variables).
    const embeddingsUrl = text(values['embeddings-url']) ?? process.env.KNOWLEDGE_EMBEDDINGS_URL?.trim();
    const embeddingsModel =
      text(values['embeddings-model']) ?? process.env.KNOWLEDGE_EMBEDDINGS_MODEL?.trim();
    if (Boolean(embeddingsUrl) !== Boolean(embeddingsModel))
      throw new UsageError(
        'hybrid search needs both KNOWLEDGE_EMBEDDINGS_URL and KNOWLEDGE_EMBEDDINGS_MODEL (or --embeddings-url and --embeddings-model)',
      );
    const apiKey = process.env.KNOWLEDGE_EMBEDDINGS_API_KEY?.trim();
    const embeddings =
      embeddingsUrl && embeddingsModel
        ? new Embeddings(
            {
              url: embeddingsUrl,
              model: embeddingsModel,
              ...(apiKey ? { apiKey } : {}),
              cacheDir:
                text(values['cache-dir']) ??
                (process.env.KNOWLEDGE_CACHE_DIR?.trim() || defaultCacheDir(process.env)),
            },
            logger,
          )
        : undefined;
    const knowledge = new KnowledgeBase(folder, logger, { maxFileBytes }, embeddings);
    await knowledge.rebuild();
    const sessions = sessionServers(knowledge);
    return {
      newServer: sessions.newServer,
      logFields: { folder },
      close: () => knowledge.close(),
      // A changed folder: rebuild, then tell every connected client its resource list changed.
      onServing: ({ notify }) =>
        knowledge.watch(() => {
          sessions.notifyResourcesChanged();
          notify?.resourcesChanged();
        }),
    };
  },
});
