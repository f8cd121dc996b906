import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, renameSync, rmSync } from 'node:fs';
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
