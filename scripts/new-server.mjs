#!/usr/bin/env node
// `pnpm new-server <name>`: scaffolds mcp_servers/<name>, a standalone MCP server package (its own bin,
// README, tsconfig, a createServer() with one example tool, a stdio test) that imports nothing from
// packages/ or apps/, and adds it to config/mcp_servers.json, disabled.
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
      dependencies: pick(weather.dependencies, ['@modelcontextprotocol/sdk', 'zod']),
      devDependencies: pick(weather.devDependencies, ['@types/node', 'typescript', 'vitest']),
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
  'src/server.ts': `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

/** Builds the ${name} MCP server without starting any transport (no side effects), so tests can serve it. */
export function createServer(): McpServer {
  const server = new McpServer({ name: '${command}', version: '0.0.0' });
  // An example tool: replace it with what this server is for. Mark tools that only read as such.
  server.registerTool(
    'greet',
    {
      title: 'Greet',
      description: 'Greets a person by name. An example tool of the ${name} server.',
      inputSchema: { name: z.string().min(1).describe('who to greet') },
      annotations: { readOnlyHint: true },
    },
    async ({ name }) => ({ content: [{ type: 'text', text: \`Hello, \${name}!\` }] }),
  );
  return server;
}
`,
  'src/index.ts': `#!/usr/bin/env node
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createServer } from './server.js';

// Standard output is the MCP protocol: anything else goes to stderr.
async function main(): Promise<void> {
  const server = createServer();
  await server.connect(new StdioServerTransport());
  const stop = () => void server.close().finally(() => process.exit(0));
  process.stdin.once('end', stop);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(\`${command}: \${error instanceof Error ? error.message : String(error)}\\n\`);
  process.exit(1);
});
`,
  'test/stdio.test.ts': `import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const entry = resolve(import.meta.dirname, '..', 'dist', 'index.js');

describe('${command} over stdio (the built executable)', () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: 'test', version: '0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [entry] }));
  });
  afterAll(() => client?.close());

  it('lists its tools, read-only ones marked', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => [tool.name, tool.annotations?.readOnlyHint])).toEqual([['greet', true]]);
  });

  it('answers a call, and refuses bad arguments as an error result', async () => {
    const result = (await client.callTool({
      name: 'greet',
      arguments: { name: 'Hanako' },
    })) as CallToolResult;
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Hanako!' }]);
    const bad = (await client.callTool({ name: 'greet', arguments: {} })) as CallToolResult;
    expect(bad.isError).toBe(true);
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

## Develop

\`pnpm build\`, \`pnpm test\` (the built server over stdio). This package imports nothing from the rest
of the repository: it can be moved to its own repository as it is.
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
Next: ${pnpm} install && ${pnpm} --filter ${packageName} build && ${pnpm} --filter ${packageName} test
`);
