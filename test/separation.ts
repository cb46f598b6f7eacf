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

/**
 * Lists every place where a server under `serversRoot` depends on the host: a workspace or
 * `@ai-assistant/*` dependency in its package.json, or an import that leaves its own folder.
 */
export function findSeparationViolations(serversRoot: string, repoRoot: string): SeparationViolation[] {
  if (!existsSync(serversRoot)) return [];
  const violations: SeparationViolation[] = [];
  for (const server of readdirSync(serversRoot)) {
    const serverRoot = resolve(serversRoot, server);
    if (!statSync(serverRoot).isDirectory()) continue;
    const manifestPath = join(serverRoot, 'package.json');
    let ownName: string | undefined;
    if (existsSync(manifestPath)) {
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown>;
      ownName = typeof manifest.name === 'string' ? manifest.name : undefined;
      for (const field of dependencyFields) {
        const dependencies = (manifest[field] ?? {}) as Record<string, string>;
        for (const [name, version] of Object.entries(dependencies)) {
          if (name.startsWith('@ai-assistant/') || String(version).startsWith('workspace:')) {
            violations.push({
              file: relative(repoRoot, manifestPath),
              detail: `${field} names ${name}@${version}; an MCP server may not depend on the host's packages`,
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
        if (specifier.startsWith('@ai-assistant/') && !(ownName && specifier.startsWith(ownName))) {
          violations.push({ file: where, detail: `imports ${specifier}; talk to the host through MCP only` });
        } else if (specifier.startsWith('.')) {
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
