import { rmSync, statSync } from 'node:fs';

/** Wall and CPU time of a piece of work, so a busy machine shows as wall >> cpu. */
export interface Timing {
  readonly wallMs: number;
  readonly cpuMs: number;
}

export async function measure<T>(work: () => T | Promise<T>): Promise<{ result: T; timing: Timing }> {
  collectGarbage();
  const cpu = process.cpuUsage();
  const start = performance.now();
  const result = await work();
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { result, timing: { wallMs, cpuMs: (used.user + used.system) / 1000 } };
}

/** Only with node --expose-gc (npm run bench): keeps one phase's garbage out of the next. */
export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
}

export function perSecond(count: number, ms: number): number {
  return ms > 0 ? Math.round((count * 1000) / ms) : 0;
}

/** A database file with its WAL and shared-memory companions. */
export function removeDatabase(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
}

export function databaseBytes(path: string): number {
  let total = 0;
  for (const suffix of ['', '-wal']) {
    try {
      total += statSync(`${path}${suffix}`).size;
    } catch {
      // no WAL left after a clean close
    }
  }
  return total;
}

export function formatCount(value: number): string {
  return value.toLocaleString('en-AU');
}

export function formatMiB(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
