import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { processTreeCpuMicros } from './process-cpu.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LOADER = new URL('../../test/typescript-loader.mjs', import.meta.url).href;
const DOC = join(ROOT, 'docs', 'benchmarks.md');

describe('the bench runner', () => {
  it('prints its flags on --help and runs nothing (docs/benchmarks.md untouched)', () => {
    const before = readFileSync(DOC, 'utf8');
    const result = spawnSync(
      process.execPath,
      ['--import', LOADER, join(ROOT, 'src', 'bench', 'run.ts'), '--help'],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage: npm run bench/);
    for (const flag of ['--http-only', '--http-duration S', '--http-workers N,M', '--pg URL']) {
      expect(result.stdout).toContain(flag);
    }
    expect(result.stderr).not.toMatch(/bench/);
    expect(readFileSync(DOC, 'utf8')).toBe(before);
  });
});

describe('server CPU from /proc', () => {
  it.skipIf(process.platform !== 'linux')("counts this process's CPU time as it is spent", () => {
    const before = processTreeCpuMicros(process.pid);
    const started = process.cpuUsage();
    // Busy until the kernel has surely charged a few of its 10 ms ticks.
    while (process.cpuUsage(started).user < 100_000) {}
    const spent = processTreeCpuMicros(process.pid) - before;
    expect(spent).toBeGreaterThanOrEqual(50_000);
    expect(spent).toBeLessThan(10_000_000);
  });
});
