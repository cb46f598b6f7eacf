import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const repoRoot = resolve(import.meta.dirname, '..');
const source = join(repoRoot, 'packages', 'host-core', 'src');

/** Every .ts/.mts/.mjs file under `folder`. */
function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** Each module specifier a package's src imports (static, dynamic and `export … from`), with where. */
function importsOf(pkg: string): Array<{ where: string; specifier: string }> {
  const folder = join(repoRoot, pkg, 'src');
  return sourceFiles(folder).flatMap((path) =>
    [...readFileSync(path, 'utf8').matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g)].map(
      (match) => ({ where: path.slice(repoRoot.length + 1), specifier: match[1] as string }),
    ),
  );
}

/** A package's manifest dependencies by kind. */
function manifest(
  pkg: string,
): Record<'dependencies' | 'devDependencies' | 'peerDependencies', Record<string, string>> {
  const json = JSON.parse(readFileSync(join(repoRoot, pkg, 'package.json'), 'utf8'));
  return {
    dependencies: json.dependencies ?? {},
    devDependencies: json.devDependencies ?? {},
    peerDependencies: json.peerDependencies ?? {},
  };
}

describe('#44 the packages and who depends on whom', () => {
  it('#44 llm-providers depends on the types package only: its manifest and every import of its src', () => {
    const { dependencies, peerDependencies } = manifest('packages/llm-providers');
    const ours = Object.keys({ ...dependencies, ...peerDependencies }).filter((name) =>
      name.startsWith('@ai-assistant/'),
    );
    expect(ours).toEqual(['@ai-assistant/chat-types']);
    // Nothing of the MCP host comes with the providers.
    for (const heavy of [
      '@modelcontextprotocol/client',
      '@modelcontextprotocol/core',
      'undici',
      '@opentelemetry/api',
    ])
      expect(Object.keys(dependencies)).not.toContain(heavy);
    const offenders = importsOf('packages/llm-providers').filter(
      ({ specifier }) =>
        (specifier.startsWith('@ai-assistant/') && specifier !== '@ai-assistant/chat-types') ||
        specifier.startsWith('@modelcontextprotocol/'),
    );
    expect(offenders).toEqual([]);
  });

  it('#44 the types package has no runtime dependencies and imports nothing', () => {
    expect(manifest('packages/chat-types').dependencies).toEqual({});
    expect(importsOf('packages/chat-types').filter(({ specifier }) => !specifier.startsWith('.'))).toEqual(
      [],
    );
  });

  it('#44 host-core imports nothing of the assistant package (nor the store, nor an app)', () => {
    const { dependencies, devDependencies, peerDependencies } = manifest('packages/host-core');
    expect(Object.keys({ ...dependencies, ...devDependencies, ...peerDependencies })).not.toContain(
      '@ai-assistant/assistant',
    );
    expect(Object.keys({ ...dependencies, ...peerDependencies })).not.toContain('@ai-assistant/store');
    const offenders = importsOf('packages/host-core').filter(
      ({ specifier }) =>
        /^@ai-assistant\/(assistant|store|slack-bot|cli)(\/|$)/.test(specifier) ||
        /(^|\/)(assistant|apps)\//.test(specifier),
    );
    expect(offenders).toEqual([]);
    // The service lives in the assistant package, whole: host-core neither holds nor exports it.
    const exported = readFileSync(join(source, 'index.ts'), 'utf8');
    const service = ['People', 'startPeople', 'UsageGate', 'WorkspaceServerError', 'ConversationSource'];
    expect(service.filter((name) => new RegExp(`\\b${name}\\b`).test(exported))).toEqual([]);
  });

  it('#44 the store knows nothing of Slack: no Slack package in its manifest or its imports', () => {
    const { dependencies, devDependencies, peerDependencies } = manifest('packages/store');
    expect(
      Object.keys({ ...dependencies, ...devDependencies, ...peerDependencies }).filter((name) =>
        /slack/i.test(name),
      ),
    ).toEqual([]);
    expect(importsOf('packages/store').filter(({ specifier }) => /slack|apps\//i.test(specifier))).toEqual(
      [],
    );
  });
});

describe('host-core layering', () => {
  it('no module in mcp/ (or tools/, config/) imports from chat/: the loop depends on MCP, not the reverse', () => {
    const offenders: string[] = [];
    for (const folder of ['mcp', 'tools', 'config']) {
      for (const file of readdirSync(join(source, folder)).filter((name) => name.endsWith('.ts'))) {
        const text = readFileSync(join(source, folder, file), 'utf8');
        text.split('\n').forEach((line, index) => {
          if (/from\s+['"]\.\.\/chat\//.test(line) || /import\(\s*['"]\.\.\/chat\//.test(line))
            offenders.push(`${folder}/${file}:${index + 1}: ${line.trim()}`);
        });
      }
    }
    expect(offenders).toEqual([]);
  });

  it('chat/ imports nothing from mcp/: the loop knows only the seam (tool-host.ts, errors.ts)', () => {
    const offenders: string[] = [];
    for (const file of readdirSync(join(source, 'chat')).filter((name) => name.endsWith('.ts'))) {
      const text = readFileSync(join(source, 'chat', file), 'utf8');
      text.split('\n').forEach((line, index) => {
        if (/from\s+['"]\.\.\/mcp\//.test(line) || /import\(\s*['"]\.\.\/mcp\//.test(line))
          offenders.push(`chat/${file}:${index + 1}: ${line.trim()}`);
      });
    }
    expect(offenders).toEqual([]);
  });

  it('the apps reach MCP only through People: they never hold the shared host or build a view', () => {
    const apps = join(repoRoot, 'apps');
    const offenders: string[] = [];
    const walk = (folder: string): void => {
      for (const entry of readdirSync(folder, { withFileTypes: true })) {
        const path = join(folder, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (
          entry.name.endsWith('.ts') &&
          !entry.name.endsWith('.test.ts') &&
          /McpClientManager|McpHost\b|startMcpFromEnvironment|forPerson\(/.test(readFileSync(path, 'utf8'))
        )
          offenders.push(path.slice(apps.length + 1));
      }
    };
    for (const app of readdirSync(apps)) walk(join(apps, app, 'src'));
    expect(offenders).toEqual([]);
  });
});

describe('the store', () => {
  it('#44 the store knows nothing of Slack: no Slack word in packages/store/src (the shipped table name aside)', () => {
    const store = resolve(import.meta.dirname, '..', 'packages', 'store', 'src');
    const offenders: string[] = [];
    for (const file of readdirSync(store).filter((name) => name.endsWith('.ts'))) {
      readFileSync(join(store, file), 'utf8')
        .split('\n')
        .forEach((line, index) => {
          // Migrations that shipped created and later dropped this table; they are never edited.
          if (/slack/i.test(line.replaceAll('slack_installations', '')))
            offenders.push(`${file}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });
});

describe('the Slack app', () => {
  it('#44 Answering records the answer it got: no Proxy around the loop, no module-global AsyncLocalStorage for the turn', () => {
    const slack = resolve(import.meta.dirname, '..', 'apps', 'slack-bot', 'src', 'slack');
    const offenders: string[] = [];
    for (const file of readdirSync(slack).filter((name) => name.endsWith('.ts'))) {
      readFileSync(join(slack, file), 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (/new Proxy\(|new AsyncLocalStorage\b|currentTurn\(/.test(line))
            offenders.push(`${file}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });

  it('#44 the store is required: no in-memory twins of it and no branch for its absence in apps/slack-bot/src', () => {
    const source = resolve(import.meta.dirname, '..', 'apps', 'slack-bot', 'src');
    const absent =
      /class Memory|EventDeduper|memoryUsageStore|\b(store|sealed)\?[:.]|(Store(\['\w+'\])?|Coordination) \| undefined/;
    const offenders: string[] = [];
    const walk = (folder: string): void => {
      for (const entry of readdirSync(folder, { withFileTypes: true })) {
        const path = join(folder, entry.name);
        if (entry.isDirectory()) walk(path);
        // main.ts opens the store: before that there is none to close.
        else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && entry.name !== 'main.ts')
          readFileSync(path, 'utf8')
            .split('\n')
            .forEach((line, index) => {
              if (absent.test(line))
                offenders.push(`${path.slice(source.length + 1)}:${index + 1}: ${line.trim()}`);
            });
      }
    };
    walk(source);
    expect(offenders).toEqual([]);
  });
});
