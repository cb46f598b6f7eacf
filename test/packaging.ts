import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
} from 'node:fs';
import { basename, dirname, join, posix } from 'node:path';

/** A workspace that is published to npm (its package.json is not private). */
export interface PublishedWorkspace {
  name: string;
  folder: string;
}

interface Manifest {
  name: string;
  private?: boolean;
  main?: string;
  bin?: string | Record<string, string>;
  exports?: unknown;
  packageManager?: string;
}

const readManifest = (folder: string) =>
  JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as Manifest;

/** Every published workspace under packages/ and mcp_servers/. */
export function publishedWorkspaces(repoRoot: string): PublishedWorkspace[] {
  const found: PublishedWorkspace[] = [];
  for (const group of ['packages', 'mcp_servers']) {
    for (const name of readdirSync(join(repoRoot, group)).sort()) {
      const folder = join(repoRoot, group, name);
      if (!existsSync(join(folder, 'package.json'))) continue;
      const manifest = readManifest(folder);
      if (!manifest.private) found.push({ name: manifest.name, folder });
    }
  }
  return found;
}

/** The pnpm version package.json pins, through npx (works where pnpm is not installed). */
function pnpm(repoRoot: string): [string, string[]] {
  const version = readManifest(repoRoot).packageManager?.split('@')[1] ?? 'latest';
  return ['npx', ['--yes', `pnpm@${version}`]];
}

/**
 * Packs one workspace with `pnpm pack` (which turns `workspace:` ranges into versions) into `destination`
 * and returns the tarball's path. Fails with a clear message when the package is not built.
 */
export function packWorkspace(repoRoot: string, workspace: PublishedWorkspace, destination: string): string {
  if (!existsSync(join(workspace.folder, 'dist'))) {
    throw new Error(
      `${workspace.name} is not built (no dist/ in ${workspace.folder}): run \`pnpm build\` first`,
    );
  }
  const [command, prefix] = pnpm(repoRoot);
  const output = execFileSync(command, [...prefix, 'pack', '--pack-destination', destination], {
    cwd: workspace.folder,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tarball = output
    .trim()
    .split('\n')
    .map((line) => line.trim())
    .reverse()
    .find((line) => line.endsWith('.tgz'));
  if (!tarball) throw new Error(`pnpm pack printed no tarball for ${workspace.name}:\n${output}`);
  return tarball.startsWith('/') ? tarball : join(destination, basename(tarball));
}

/** The files in a tarball, relative to its `package/` folder. */
export function tarballFiles(tarball: string): Set<string> {
  const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' });
  return new Set(
    listing
      .split('\n')
      .filter((line) => line.startsWith('package/') && !line.endsWith('/'))
      .map((line) => line.slice('package/'.length)),
  );
}

function readFromTarball(tarball: string, path: string): string {
  return execFileSync('tar', ['-xzOf', tarball, `package/${path}`], { encoding: 'utf8' });
}

function exportTargets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(exportTargets);
  return [];
}

const relativeImport = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"\n]+)\1/g;

/**
 * What a tarball lacks for its own `bin`, `main` and `exports` to load: each target must be in it, and
 * so must every file those JavaScript entry points import by relative path, followed transitively.
 */
export function missingFromTarball(tarball: string): string[] {
  const files = tarballFiles(tarball);
  if (!files.has('package.json')) return ['package.json'];
  const manifest = JSON.parse(readFromTarball(tarball, 'package.json')) as Manifest;
  const problems: string[] = [];
  const entries: Array<[string, string]> = [];
  const bins = typeof manifest.bin === 'string' ? { [manifest.name]: manifest.bin } : (manifest.bin ?? {});
  for (const [name, target] of Object.entries(bins)) entries.push([`bin ${name}`, target]);
  if (manifest.main) entries.push(['main', manifest.main]);
  for (const target of exportTargets(manifest.exports)) entries.push(['exports', target]);

  const seen = new Set<string>();
  const queue: Array<[string, string]> = [];
  for (const [field, target] of entries) {
    const path = posix.normalize(target);
    if (!files.has(path)) problems.push(`${path} (named by ${field})`);
    else queue.push([path, field]);
  }
  while (queue.length > 0) {
    const [path] = queue.shift() as [string, string];
    if (seen.has(path) || !/\.[cm]?js$/.test(path)) continue;
    seen.add(path);
    for (const match of readFromTarball(tarball, path).matchAll(relativeImport)) {
      const imported = posix.normalize(posix.join(posix.dirname(path), match[2] as string));
      if (!files.has(imported)) problems.push(`${imported} (imported by ${path})`);
      else queue.push([imported, path]);
    }
  }
  return [...new Set(problems)];
}

interface InstalledManifest extends Manifest {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** The folder `dependency` resolves to from `folder`, as Node looks it up (node_modules, upwards). */
function installedFrom(folder: string, dependency: string): string | undefined {
  for (let at = folder; ; at = dirname(at)) {
    const candidate = join(at, 'node_modules', dependency);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(at) === at) return undefined;
  }
}

/**
 * Installs `tarballs` into `consumer/node_modules` as npm would, without a registry: each tarball is
 * unpacked under its name, and each dependency it declares (peers too, unless optional) is linked to the
 * copy this workspace installed for the package it was packed from. Only declared dependencies are
 * reachable from the top, so a package that imports one it does not declare fails to load. Bins go to
 * `node_modules/.bin`. The registry's part — resolving the ranges — is what this leaves out.
 */
export function installTarballs(consumer: string, tarballs: Map<string, string>): void {
  const modules = join(consumer, 'node_modules');
  mkdirSync(join(modules, '.bin'), { recursive: true });
  for (const [name, tarball] of tarballs) {
    const target = join(modules, name);
    mkdirSync(target, { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
  }
  const sources = new Map(
    publishedWorkspaces(join(import.meta.dirname, '..')).map((w) => [w.name, w.folder]),
  );
  for (const name of tarballs.keys()) {
    const manifest = readManifest(join(modules, name)) as InstalledManifest;
    const optional = (peer: string) => manifest.peerDependenciesMeta?.[peer]?.optional === true;
    const needed = [
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}).filter((peer) => !optional(peer)),
    ];
    for (const dependency of needed) {
      const link = join(modules, dependency);
      if (existsSync(link)) continue;
      const source = installedFrom(sources.get(name) as string, dependency);
      if (!source) throw new Error(`${name} declares ${dependency}, which this workspace has not installed`);
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(source, link, 'dir');
    }
    const bins = typeof manifest.bin === 'string' ? { [manifest.name]: manifest.bin } : (manifest.bin ?? {});
    for (const [bin, file] of Object.entries(bins)) {
      chmodSync(join(modules, name, file), 0o755);
      symlinkSync(join('..', name, file), join(modules, '.bin', bin));
    }
  }
}
