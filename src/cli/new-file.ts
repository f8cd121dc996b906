import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * A SQLite file a command makes (a new store, a backup) is written under a name of this process's
 * own beside its target, `.NAME.PURPOSE-PID-XXXXXXXX`, and linked in place once whole: no other
 * process opens it half made, and a failure removes only it.
 */
export function asideOf(target: string, purpose: string): string {
  return join(
    dirname(target),
    `.${basename(target)}.${purpose}-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
}

/** Links `building` at `target`; false when a file is there already (link() never replaces one). */
export function placed(building: string, target: string): boolean {
  try {
    linkSync(building, target);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST' || existsSync(target)) return false;
  }
  // A file system without hard links: a rename after a look, a race only such systems keep.
  renameSync(building, target);
  return true;
}

/** A SQLite file and the write-ahead log and index that may lie beside it. */
export function removeSqliteFiles(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) rmSync(file, { force: true });
}

/** A file set aside untouched for this long, of a process that has ended, was abandoned. */
const ABANDONED_AFTER_MS = 60_000;

/**
 * Removes the files earlier runs of `purpose` (an ingest, a backup) were making beside `target`
 * and never put in place (killed with -9, or the machine stopped): a partial store, possibly large,
 * that nothing else would ever remove; `say` is told of each. A file is taken as abandoned only
 * when the process its name gives has ended and none of its files changed for a minute: a process
 * id says nothing about another machine or container sharing the folder, which keeps writing its files.
 */
export function removeAbandonedBuilds(target: string, purpose: string, say: (line: string) => void): void {
  const folder = dirname(target);
  if (!existsSync(folder)) return;
  const prefix = `.${basename(target)}.${purpose}-`;
  /** Each file's name (without -wal or -shm) and the id of the process that began it. */
  const builds = new Map<string, number>();
  for (const name of readdirSync(folder)) {
    if (!name.startsWith(prefix)) continue;
    const match = /^(\d+)-[0-9a-f]{8}(?:-wal|-shm)?$/.exec(name.slice(prefix.length));
    if (match) builds.set(name.replace(/-(?:wal|shm)$/, ''), Number(match[1]));
  }
  for (const [name, pid] of builds) {
    const building = join(folder, name);
    if (processRuns(pid) || changedWithin(building, ABANDONED_AFTER_MS)) continue;
    removeSqliteFiles(building);
    say(`removed ${building}, a store an earlier ${purpose} (process ${pid}, ended) did not finish`);
  }
}

/** Whether a process with this id runs here (signal 0 checks without sending anything). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

function changedWithin(path: string, ms: number): boolean {
  const now = Date.now();
  return [path, `${path}-wal`, `${path}-shm`].some((file) => {
    const modified = statSync(file, { throwIfNoEntry: false })?.mtimeMs;
    return modified !== undefined && now - modified < ms;
  });
}
