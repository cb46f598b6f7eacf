import { type ExecFileSyncOptions, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from './ports.js';

/** A PostgreSQL server of this machine, started in a temporary folder for one test file. */
export interface TestPostgres {
  /** Connection string of the `postgres` database. */
  url: string;
  /** Creates an empty database and returns its connection string. */
  newDatabase(): string;
  /** Stops the server at once and removes its folder. */
  /** Stops the server (immediate mode) and removes its folder; a second call does nothing. */
  stop(): void;
}

/** The folder holding `initdb`, `pg_ctl` and `createdb`: Debian's /usr/lib/postgresql/<newest>/bin, else on PATH. */
export function postgresBinaries(): string | undefined {
  const debian = '/usr/lib/postgresql';
  const candidates = existsSync(debian)
    ? readdirSync(debian)
        .sort((a, b) => Number(b) - Number(a))
        .map((version) => join(debian, version, 'bin'))
    : [];
  candidates.push(...(process.env.PATH ?? '').split(delimiter));
  return candidates.find(
    (folder) =>
      folder && ['initdb', 'pg_ctl', 'createdb'].every((program) => existsSync(join(folder, program))),
  );
}

/** PostgreSQL refuses to run as root: as root, the server runs as the `postgres` account. */
function serverAccount(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  if (!line) throw new Error('running as root, and there is no postgres account to run PostgreSQL as');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

let counter = 0;

/**
 * Starts a real PostgreSQL on a free loopback port with the machine's `initdb`/`pg_ctl`, in a new
 * temporary folder; `undefined` when this machine has no PostgreSQL (the caller skips, saying so).
 */
export async function startPostgres(): Promise<TestPostgres | undefined> {
  const bin = postgresBinaries();
  if (!bin) return undefined;
  const account = serverAccount();
  const folder = mkdtempSync(join(tmpdir(), 'pg-test-'));
  const data = join(folder, 'data');
  if (account) chownSync(folder, account.uid, account.gid);
  const options: ExecFileSyncOptions = { stdio: 'pipe', timeout: 60_000, ...(account ?? {}), cwd: folder };
  const run = (program: string, args: string[]) => execFileSync(join(bin, program), args, options);
  const port = await freePort();
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    run('pg_ctl', [
      '-D',
      data,
      '-l',
      join(folder, 'server.log'),
      '-w',
      '-t',
      '60',
      '-o',
      `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200`,
      'start',
    ]);
  } catch (error) {
    const log = existsSync(join(folder, 'server.log'))
      ? readFileSync(join(folder, 'server.log'), 'utf8')
      : '';
    rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
    const output = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`PostgreSQL did not start: ${String(error)}\n${output}\n${log}`);
  }
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  let stopped = false;
  return {
    url: url('postgres'),
    newDatabase() {
      const name = `test_${process.pid}_${++counter}`;
      run('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', name]);
      return url(name);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
      }
    },
  };
}
