import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** One way an MCP server reaches into the host instead of talking MCP. */
export interface SeparationViolation {
  file: string;
  detail: string;
}

const sourceExtensions = /\.(?:[cm]?[jt]s|tsx|jsx)$/;
const skippedFolders = new Set(['node_modules', 'dist', '.turbo', 'coverage']);
const dependencyFields = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];
// import … from 'x', export … from 'x', import('x'), require('x'), import 'x'
const specifierPattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)(['"])([^'"\n]+)\1/g;

function sourceFiles(folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(folder)) {
    if (skippedFolders.has(entry)) continue;
    const path = join(folder, entry);
    if (statSync(path).isDirectory()) found.push(...sourceFiles(path));
    else if (sourceExtensions.test(entry)) found.push(path);
  }
  return found;
}

/** The one shared package a server may take from the workspace: it is published, like the SDK. */
export const sharedKit = '@ai-assistant/mcp-server-kit';

/** The names of the workspace packages under packages/ and apps/: the host, which a server never uses. */
function hostPackageNames(repoRoot: string): Set<string> {
  const names = new Set<string>();
  for (const group of ['packages', 'apps']) {
    const groupRoot = join(repoRoot, group);
    if (!existsSync(groupRoot)) continue;
    for (const entry of readdirSync(groupRoot)) {
      const manifestPath = join(groupRoot, entry, 'package.json');
      if (!existsSync(manifestPath)) continue;
      const name = (JSON.parse(readFileSync(manifestPath, 'utf8')) as { name?: unknown }).name;
      if (typeof name === 'string') names.add(name);
    }
  }
  return names;
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`, `name/sub` → `name`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

/**
 * Lists every place where a folder under `serversRoot` (each server, and the shared kit) breaks the rule
 * that it can move to its own repository as it is: it may depend on npm packages by name, including
 * {@link sharedKit}, but not on a workspace package of packages/ or apps/, not on any other package
 * through a `workspace:`, `link:` or `file:` version, and may not import a path that leaves its folder.
 */
export function findSeparationViolations(serversRoot: string, repoRoot: string): SeparationViolation[] {
  if (!existsSync(serversRoot)) return [];
  const hostPackages = hostPackageNames(repoRoot);
  const violations: SeparationViolation[] = [];
  for (const server of readdirSync(serversRoot)) {
    const serverRoot = resolve(serversRoot, server);
    if (!statSync(serverRoot).isDirectory()) continue;
    const manifestPath = join(serverRoot, 'package.json');
    if (existsSync(manifestPath)) {
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown>;
      for (const field of dependencyFields) {
        const dependencies = (manifest[field] ?? {}) as Record<string, string>;
        for (const [name, version] of Object.entries(dependencies)) {
          const file = relative(repoRoot, manifestPath);
          if (hostPackages.has(name)) {
            violations.push({
              file,
              detail: `${field} names ${name}, a package of packages/ or apps/; an MCP server talks to the host through MCP only`,
            });
          } else if (/^(?:workspace|link|file|portal):/.test(String(version)) && name !== sharedKit) {
            violations.push({
              file,
              detail: `${field} names ${name}@${version}; take it from npm by name (only ${sharedKit} may come from the workspace)`,
            });
          }
        }
      }
    }
    for (const file of sourceFiles(serverRoot)) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(specifierPattern)) {
        const specifier = match[2] ?? '';
        const line = text.slice(0, match.index).split('\n').length;
        const where = `${relative(repoRoot, file)}:${line}`;
        if (hostPackages.has(packageOf(specifier))) {
          violations.push({ file: where, detail: `imports ${specifier}; talk to the host through MCP only` });
        } else if (specifier.startsWith('.') || specifier.startsWith('/')) {
          const target = resolve(dirname(file), specifier);
          if (target !== serverRoot && !target.startsWith(serverRoot + sep)) {
            violations.push({
              file: where,
              detail: `imports ${specifier}, which leaves ${relative(repoRoot, serverRoot)}`,
            });
          }
        }
      }
    }
  }
  return violations;
}
