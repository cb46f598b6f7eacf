import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const repoRoot = resolve(import.meta.dirname, '..');

/** Every .ts file under `folder`, tests left out. */
function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory())
      return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * Errors that answer the MCP SDK keep the SDK's own shape (a JSON-RPC number in `code`), as the servers
 * under mcp_servers/ do: FormNotShown is a declined elicitation the SDK sends back as "Invalid params".
 */
const sdkShaped = new Set(['FormNotShown']);

describe('#44 one error base with a code across every package', () => {
  it('#44 every error class of packages/ and apps/ extends the base (HostError) and so carries a code', () => {
    const offenders: string[] = [];
    for (const group of ['packages', 'apps'])
      for (const pkg of readdirSync(join(repoRoot, group)))
        for (const file of sources(join(repoRoot, group, pkg, 'src')))
          for (const match of readFileSync(file, 'utf8').matchAll(/class (\w+)(?:<[^>]*>)? extends Error\b/g))
            if (!sdkShaped.has(match[1] as string))
              offenders.push(`${file.slice(repoRoot.length + 1)}: ${match[1]}`);
    expect(offenders).toEqual(['packages/chat-types/src/errors.ts: HostError']);
  });

  it("#44 the Slack app's start tells a known problem by its code, not by asking six classes", () => {
    const main = readFileSync(join(repoRoot, 'apps', 'slack-bot', 'src', 'main.ts'), 'utf8');
    expect(main.match(/instanceof (?!HostError\b)\w+Error\b/g) ?? []).toEqual([]);
  });
});
