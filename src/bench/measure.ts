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

/**
 * A measured value printed next to its target's verdict: `digits` decimals, more when that many
 * would show the target itself for a value on one side of it (0.2966 against 0.3 is "0.297", not
 * "0.30" beside "NOT met"), so the figure never reads as the other side of the verdict.
 */
export function shownAgainst(value: number, target: number, digits = 2): string {
  let text = value.toFixed(digits);
  for (let more = digits + 1; Number(text) === target && value !== target && more <= 6; more += 1) {
    text = value.toFixed(more);
  }
  return text;
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
