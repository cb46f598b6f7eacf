import { readdirSync, readFileSync } from 'node:fs';

/**
 * The live child processes of `pid` (Linux: /proc/<pid>/task/<tid>/children). A test that started servers
 * asserts this is empty once it has closed them: nothing a test starts may outlive it.
 */
export function childProcesses(pid: number = process.pid): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}
