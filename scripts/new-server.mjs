#!/usr/bin/env node
// `pnpm new-server <name>`: scaffolds mcp_servers/<name>, a standalone MCP server package (its own bin,
// README, tsconfig, a createServer() with one example tool, a stdio test in both protocol eras) on the
// SDK's @modelcontextprotocol/server and the shared @ai-assistant/mcp-server-kit (the command line,
// --http, logging), importing nothing from packages/ or apps/, and adds it to config/mcp_servers.json,
// disabled.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = process.env.NEW_SERVER_ROOT || join(dirname(fileURLToPath(import.meta.url)), '..');
const name = process.argv[2] ?? '';
if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(name) || name.length > 40) {
  process.stderr.write(
    'usage: pnpm new-server <name>   (lower-case letters, digits and single hyphens, e.g. "jira" or "team-wiki")\n',
  );
  process.exit(2);
}
const folder = join(root, 'mcp_servers', name);
if (existsSync(folder)) {
  process.stderr.write(`mcp_servers/${name} exists already; choose another name\n`);
  process.exit(1);
}
const command = `mcp-server-${name}`;
const packageName = `@ai-assistant/${command}`;
// Versions follow the weather server's, so the workspace resolves to what it already has.
const weather = JSON.parse(readFileSync(join(root, 'mcp_servers', 'weather', 'package.json'), 'utf8'));
const pick = (record, keys) => Object.fromEntries(keys.map((key) => [key, record[key]]));

const files = {
  'package.json': `${JSON.stringify(
    {
      name: packageName,
      version: '0.0.0',
      description: `MCP server: ${name}.`,
      license: 'MIT',
      type: 'module',
      bin: { [command]: `bin/${command}.js` },
      main: './dist/server.js',
      types: './dist/server.d.ts',
      exports: { '.': { types: './dist/server.d.ts', import: './dist/server.js' } },
      files: ['bin', 'dist', 'LICENSE'],
      engines: weather.engines,
      publishConfig: { access: 'public', provenance: true },
      scripts: {
        build: 'tsc -p tsconfig.build.json',
        typecheck: 'tsc -p tsconfig.json',
        test: 'vitest run',
        dev: 'tsc -p tsconfig.build.json --watch --preserveWatchOutput',
      },
      dependencies: pick(weather.dependencies, [
        '@ai-assistant/mcp-server-kit',
        '@modelcontextprotocol/server',
        'zod',
      ]),
      devDependencies: pick(weather.devDependencies, [
        '@modelcontextprotocol/client',
        '@types/node',
        'typescript',
        'vitest',
      ]),
    },
    null,
    2,
  )}\n`,
  'tsconfig.json': readFileSync(join(root, 'mcp_servers', 'weather', 'tsconfig.json'), 'utf8').replace(
    '"include": ["src", "test", "bench", "vitest.config.ts"]',
    '"include": ["src", "test", "vitest.config.ts"]',
  ),
  'tsconfig.build.json': readFileSync(join(root, 'mcp_servers', 'weather', 'tsconfig.build.json'), 'utf8'),
  'vitest.config.ts': readFileSync(join(root, 'mcp_servers', 'weather', 'vitest.config.ts'), 'utf8'),
  [`bin/${command}.js`]: `#!/usr/bin/env node
// The published command; the server itself is dist/index.js.
import '../dist/index.js';
`,
  'src/server.ts': `import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { version } from './version.js';

/** Builds the ${name} MCP server without starting any transport (no side effects), so tests can serve it. */
export function createServer(): McpServer {
  const server = new McpServer({ name: '${command}', version });
  // An example tool: replace it with what this server is for. Mark tools that only read as such.
  server.registerTool(
    'greet',
    {
      title: 'Greet',
      description: 'Greets a person by name. An example tool of the ${name} server.',
      inputSchema: z.object({ name: z.string().min(1).describe('who to greet') }),
      annotations: { readOnlyHint: true },
    },
    async ({ name }) => ({ content: [{ type: 'text', text: \`Hello, \${name}!\` }] }),
  );
  return server;
}
`,
  'src/version.ts': `import { createRequire } from 'node:module';

/** This package's version, read from its package.json. */
export const version: string = (createRequire(import.meta.url)('../package.json') as { version: string })
  .version;
`,
  'src/index.ts': `#!/usr/bin/env node
import { runServer, sharedUsage } from '@ai-assistant/mcp-server-kit';
import { createServer } from './server.js';
import { version } from './version.js';

const defaultPort = 3000;

// stdio by default, Streamable HTTP with --http; MCP 2025-11-25 and 2026-07-28 alike. Logs go to stderr.
await runServer({
  name: '${command}',
  version,
  usage: \`Usage: ${command} [--http [--port \${defaultPort}] [--host 127.0.0.1]]

Options:
\${sharedUsage(defaultPort)}
Environment:
  LOG_LEVEL      "info" (default) or "warn" (logs go to stderr)
\`,
  defaultPort,
  async prepare() {
    return { newServer: () => createServer() };
  },
});
`,
  'test/stdio.test.ts': `import { resolve } from 'node:path';
import { type CallToolResult, Client, type ClientOptions } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const entry = resolve(import.meta.dirname, '..', 'dist', 'index.js');

// 2025-11-25 opens with initialize (the client's default); 2026-07-28 asks server/discover first.
const eras: Record<string, ClientOptions> = {
  '2025-11-25': {},
  '2026-07-28': { versionNegotiation: { mode: 'auto' } },
};

describe('${command} over stdio (the built executable), both protocol eras', () => {
  const clients = new Map<string, Client>();
  beforeAll(async () => {
    for (const [era, options] of Object.entries(eras)) {
      const client = new Client({ name: 'test', version: '0' }, options);
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [entry] }));
      expect(client.getNegotiatedProtocolVersion()).toBe(era);
      clients.set(era, client);
    }
  });
  afterAll(() => Promise.all([...clients.values()].map((client) => client.close())));

  it('lists its tools, read-only ones marked', async () => {
    for (const client of clients.values()) {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => [tool.name, tool.annotations?.readOnlyHint])).toEqual([['greet', true]]);
    }
  });

  it('answers a call, and refuses bad arguments as an error result', async () => {
    for (const client of clients.values()) {
      const result = (await client.callTool({
        name: 'greet',
        arguments: { name: 'Hanako' },
      })) as CallToolResult;
      expect(result.content).toEqual([{ type: 'text', text: 'Hello, Hanako!' }]);
      const bad = (await client.callTool({ name: 'greet', arguments: {} })) as CallToolResult;
      expect(bad.isError).toBe(true);
    }
  });
});
`,
  'README.md': `# ${packageName}

An MCP server: ${name}. (Describe what it is for in one line.)

## Tools

| tool | arguments | returns |
|---|---|---|
| \`greet\` | \`name\` (string, required) | a greeting (an example: replace it) |

## Use it

In ai-assistant's \`config/mcp_servers.json\` it is listed disabled; set \`"disabled": false\` (or add
\`{"mcpServers": {"${name}": {"disabled": false}}}\` to the git-ignored \`config/mcp_servers.local.json\`).
Any host that reads an \`mcpServers\` map:

\`\`\`json
{ "mcpServers": { "${name}": { "command": "npx", "args": ["-y", "${packageName}"] } } }
\`\`\`

(\`npx\` works once the package is published; before that, \`node mcp_servers/${name}/dist/index.js\`.)

## Protocol and command line

It speaks MCP 2025-11-25 (\`initialize\`, then a session) and 2026-07-28 (stateless: \`server/discover\`,
each request carrying its version in \`_meta\`); the client chooses. stdio by default; \`--http\` serves
Streamable HTTP at \`http://127.0.0.1:3000/mcp\` (\`--port <n>\`, 0 picks a free port; \`--host <name>\`),
with the legacy HTTP+SSE endpoint at \`/mcp/sse\`. \`--help\` and \`--version\` work; a bad flag exits 2;
logs are JSON lines on stderr. This comes from \`@ai-assistant/mcp-server-kit\`.

## Develop

\`pnpm build\`, \`pnpm test\` (the built server over stdio, in both eras). This package imports nothing
from the rest of the repository, and takes the SDK and the kit from npm by name: it can be moved to its
own repository as it is.
`,
};

for (const [path, text] of Object.entries(files)) {
  const full = join(folder, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, text);
}
chmodSync(join(folder, 'bin', `${command}.js`), 0o755);
copyFileSync(join(root, 'LICENSE'), join(folder, 'LICENSE'));

/**
 * The config's text with one more entry at the end of `mcpServers`: the rest of the file stays as it was
 * written, byte for byte (a JSON round trip would reformat every other entry).
 */
function withEntry(text, entryName, value) {
  const servers = JSON.parse(text).mcpServers;
  if (!servers || typeof servers !== 'object') throw new Error(`${configPath}: no "mcpServers" object`);
  // The closing brace of the mcpServers object: scan from its key, skipping strings.
  const start = text.indexOf('{', text.indexOf('"mcpServers"'));
  let depth = 0;
  let inString = false;
  let end = -1;
  for (let index = start; index < text.length && end < 0; index++) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') depth++;
    else if (char === '}' && --depth === 0) end = index;
  }
  const before = text.slice(0, end).trimEnd();
  // One field a line, each value on its line, as the shipped entries are written.
  const fields = Object.entries(value).map(
    ([key, field]) => `      ${JSON.stringify(key)}: ${JSON.stringify(field)}`,
  );
  const body = `{\n${fields.join(',\n')}\n    }`;
  const separator = Object.keys(servers).length > 0 ? ',' : '';
  return `${before}${separator}\n    ${JSON.stringify(entryName)}: ${body}\n  ${text.slice(end)}`;
}

// The shipped config gets a disabled entry, so the server is one switch away.
const configPath = join(root, 'config', 'mcp_servers.json');
const configText = readFileSync(configPath, 'utf8');
const entry = { command: 'node', args: [`../mcp_servers/${name}/dist/index.js`], disabled: true };
writeFileSync(configPath, withEntry(configText, name, entry));

/**
 * Gives the new package an importer in pnpm-lock.yaml with the weather server's resolutions for the same
 * dependencies (the scaffold takes its ranges from there): `pnpm install` then has nothing to resolve,
 * so it needs no registry metadata and works offline. Left alone when the lockfile is not the expected
 * shape; pnpm then resolves them itself.
 */
function addLockfileImporter(lockfilePath, importer, dependencies) {
  if (!existsSync(lockfilePath)) return;
  const lines = readFileSync(lockfilePath, 'utf8').split('\n');
  const start = lines.indexOf('  mcp_servers/weather:');
  if (start < 0 || lines.includes(`  ${importer}:`)) return;
  let end = start + 1;
  while (end < lines.length && lines[end] !== '') end++;
  const block = lines.slice(start + 1, end);
  const section = (heading, names) => {
    const out = [];
    let current = '';
    for (let index = 0; index < block.length; index++) {
      const line = block[index];
      if (/^ {4}\S/.test(line)) current = line.trim();
      else if (current === `${heading}:` && /^ {6}\S/.test(line)) {
        const dependency = line
          .trim()
          .replace(/:$/, '')
          .replace(/^'(.*)'$/, '$1');
        if (names.includes(dependency)) out.push(line, block[index + 1], block[index + 2]);
      }
    }
    return out.length === names.length * 3 ? [`    ${heading}:`, ...out] : undefined;
  };
  const runtime = section('dependencies', Object.keys(dependencies.dependencies));
  const development = section('devDependencies', Object.keys(dependencies.devDependencies));
  if (!runtime || !development) return;
  lines.splice(end + 1, 0, `  ${importer}:`, ...runtime, ...development, '');
  writeFileSync(lockfilePath, lines.join('\n'));
}
const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
addLockfileImporter(join(root, 'pnpm-lock.yaml'), `mcp_servers/${name}`, manifest);

// Written the way the repository's formatter writes it, so `pnpm lint` passes as it is.
const biome = join(root, 'node_modules', '.bin', 'biome');
if (existsSync(biome)) {
  spawnSync(biome, ['format', '--write', configPath, folder], { cwd: root, stdio: 'ignore' });
}

// The pnpm the repository pins, through npx, as README writes every command (pnpm need not be installed).
const pnpm = `npx --yes ${JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager}`;
process.stdout.write(`Created mcp_servers/${name} (${packageName}) and a disabled "${name}" entry in config/mcp_servers.json.
Next: ${pnpm} install && ${pnpm} --filter ${packageName}... build && ${pnpm} --filter ${packageName} test
`);
