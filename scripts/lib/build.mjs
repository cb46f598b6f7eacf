import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every workspace (packages/*, apps/*, mcp_servers/*) with a `build` script: what a full build builds. */
export function buildableWorkspaces(root) {
  return ['packages', 'apps', 'mcp_servers'].flatMap((group) => {
    const groupPath = join(root, group);
    if (!existsSync(groupPath)) return [];
    return readdirSync(groupPath)
      .map((name) => join(groupPath, name, 'package.json'))
      .filter((manifest) => existsSync(manifest))
      .map((manifest) => JSON.parse(readFileSync(manifest, 'utf8')))
      .filter((manifest) => manifest.scripts?.build)
      .map((manifest) => manifest.name);
  });
}

/**
 * Builds every workspace with turbo (its cache makes an unchanged one instant), saying how far it got
 * on stderr ("building 8 packages… 3/8 @ai-assistant/host-core"), a line a package on a pipe and one
 * line updated in place on a terminal. turbo's own output is shown only when the build fails.
 * Resolves to true when it succeeded.
 */
export function buildAll(root, { say = (text) => process.stderr.write(`${text}\n`) } = {}) {
  const names = buildableWorkspaces(root);
  const total = names.length;
  const terminal = process.stderr.isTTY;
  const started = Date.now();
  let done = 0;
  let fromCache = 0;
  let output = '';
  const progress = (text) => {
    if (terminal) process.stderr.write(`\r\x1b[2K${text}`);
    else say(text);
  };
  progress(`building ${total} packages…`);
  return new Promise((resolve) => {
    const child = spawn(
      join(root, 'node_modules', '.bin', 'turbo'),
      ['run', 'build', '--output-logs=new-only', '--ui=stream'],
      { cwd: root, env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', FORCE_COLOR: '0' } },
    );
    let pending = '';
    const read = (chunk) => {
      output += chunk;
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const task = /^(\S+):build: cache (hit|miss)/.exec(line);
        if (!task) continue;
        done += 1;
        if (task[2] === 'hit') fromCache += 1;
        progress(`building ${total} packages… ${Math.min(done, total)}/${total} ${task[1]}`);
      }
    };
    child.stdout.setEncoding('utf8').on('data', read);
    child.stderr.setEncoding('utf8').on('data', read);
    child.on('error', (error) => {
      output += `${error.message}\n`;
    });
    child.on('close', (code) => {
      if (terminal) process.stderr.write('\r\x1b[2K');
      if (code === 0) {
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        say(`built ${total} packages in ${seconds} s (${fromCache} unchanged, from turbo's cache)`);
        return resolve(true);
      }
      process.stderr.write(output);
      resolve(false);
    });
  });
}
