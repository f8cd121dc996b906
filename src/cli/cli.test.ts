import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { expectOneLineError, runGridquote } from '../../test/cli-in-process.js';
import { registerExport } from './export.js';
import { registerIngest } from './ingest.js';
import { registerSeed } from './seed.js';

const directory = mkdtempSync(join(tmpdir(), 'gridquote-cli-'));
const path = (name: string) => join(directory, name);

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** `gridquote ...args` with the store commands, on Mon 24 Feb 2025 19:00 Sydney. */
function gridquote(args: string[], stdin = '') {
  return runGridquote(args, {
    commands: [registerSeed, registerIngest, registerExport],
    now: () => new Date('2025-02-24T08:00:00Z'),
    stdin,
  });
}

/** The seed arguments the determinism test repeats (two days to 20250221, seed 3), or others. */
function seedArgs(file: string, { days = 2, until = '20250221', seed = 3 } = {}): string[] {
  return ['seed', '--db', path(file), '--days', String(days), '--until', until, '--seed', String(seed)];
}

/** A folder on a tmpfs of `megabytes` (a disk that fills), or undefined where mounting is not allowed. */
function smallDisk(megabytes: number): { readonly folder: string; unmount(): void } | undefined {
  const folder = mkdtempSync(join(tmpdir(), 'gridquote-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', folder], { stdio: 'ignore' });
  } catch {
    rmSync(folder, { recursive: true, force: true });
    return undefined;
  }
  return {
    folder,
    unmount() {
      execFileSync('umount', [folder]);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

const probe = smallDisk(1);
probe?.unmount();
if (probe === undefined) console.log('full-disk ingest test: skipped, this user cannot mount a tmpfs');

describe('gridquote CLI', () => {
  it('seeds deterministically: the same arguments give byte-identical exports', async () => {
    const first = await gridquote(seedArgs('a.db'));
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(
      /^seeded .*a\.db: 2 trading days 20250220\.\.20250221 \(seed 3\), \d+ events added/,
    );
    await gridquote(seedArgs('b.db'));
    const exportA = await gridquote(['export', '--db', path('a.db')]);
    const exportB = await gridquote(['export', '--db', path('b.db')]);
    expect(exportA.code).toBe(0);
    expect(exportA.stdout.length).toBeGreaterThan(1000);
    expect(exportB.stdout).toBe(exportA.stdout);

    const again = await gridquote(seedArgs('a.db'));
    expect(again.stderr).toMatch(/, 0 events added, \d+ already stored\n$/);
    expect((await gridquote(['export', '--db', path('a.db')])).stdout).toBe(exportA.stdout);

    const other = await gridquote(seedArgs('a.db', { seed: 4 }));
    expectOneLineError(
      other,
      /^gridquote: the store already holds other events for 20250220 \(event 20250220\/1 differs\): it was seeded with other --days, --until or --seed.*a longer history must start on the same first day.* 0 events of earlier days were added\.\n$/,
    );
    // A window moved on by a day (the default --until on a later day) differs from its first day on.
    const moved = await gridquote(seedArgs('a.db', { until: '20250224' }));
    expectOneLineError(moved, /^gridquote: the store already holds other events for 20250221 /);
    // The same first day and seed, more days: the stored ones are kept, the new one added.
    const longer = await gridquote(seedArgs('a.db', { days: 3, until: '20250224' }));
    expect(longer.stderr).toMatch(/3 trading days 20250220\.\.20250224 \(seed 3\), [1-9]\d* events added/);
  });

  it('refuses a store in a folder that does not exist, and a location of another scheme, in one line', async () => {
    expectOneLineError(
      await gridquote(['seed', '--db', path('nodir/market.db'), '--days', '1']),
      /^gridquote: no folder .*nodir for the store .*nodir\/market\.db; create the folder first\n$/,
    );
    const typo = await gridquote([
      'seed',
      '--db',
      'postgress://desk:secret@db.example/market',
      '--days',
      '1',
    ]);
    expectOneLineError(
      typo,
      /^gridquote: unknown store location scheme postgress:\/\/: a store is a SQLite file path/,
    );
    expect(typo.stderr).not.toContain('secret');
    expect(typo.stderr).not.toContain('db.example');
  });

  it('defaults to the last completed trading day, and exports one date', async () => {
    const seeded = await gridquote(['seed', '--db', path('c.db'), '--days', '1']);
    expect(seeded.stderr).toMatch(/1 trading days 20250224\.\.20250224 \(seed 1\)/);
    const day = await gridquote(['export', '--db', path('c.db'), '--date', '20250224']);
    const lines = day.stdout.trimEnd().split('\n');
    expect(lines.every((line) => line.includes('"date":"20250224"'))).toBe(true);
    expect((await gridquote(['export', '--db', path('c.db'), '--date', '20250221'])).stdout).toBe('');
  });

  it('round-trips seed -> export -> ingest (file and stdin) byte for byte', async () => {
    await gridquote(['seed', '--db', path('d.db'), '--days', '2', '--until', '20250221']);
    const original = (await gridquote(['export', '--db', path('d.db')])).stdout;
    writeFileSync(path('d.ndjson'), original);
    const loaded = await gridquote(['ingest', '--db', path('e.db'), path('d.ndjson')]);
    expect(loaded.code).toBe(0);
    expect(loaded.stderr).toMatch(/events added, 0 already stored\n$/);
    expect((await gridquote(['export', '--db', path('e.db')])).stdout).toBe(original);
    const piped = await gridquote(['ingest', '--db', path('f.db'), '-'], original);
    expect(piped.stderr).toMatch(/^ingested standard input: \d+ events added/);
    expect((await gridquote(['export', '--db', path('f.db')])).stdout).toBe(original);
    const replay = await gridquote(['ingest', '--db', path('f.db'), path('d.ndjson')]);
    expect(replay.stderr).toMatch(/: 0 events added, \d+ already stored\n$/);
  });

  it('leaves no store behind when a feed into a new file is refused, and an existing one as it was', async () => {
    const first = (await gridquote(['seed', '--db', path('r.db'), '--days', '1', '--until', '20250221']))
      .code;
    expect(first).toBe(0);
    const lines = (await gridquote(['export', '--db', path('r.db')])).stdout.trimEnd().split('\n');
    writeFileSync(path('bad.ndjson'), `${lines.slice(0, 5).join('\n')}\n{not json\n`);
    const refused = await gridquote(['ingest', '--db', path('new.db'), path('bad.ndjson')]);
    expectOneLineError(refused, /^gridquote: line 6: /);
    expect(existsSync(path('new.db'))).toBe(false);
    expect(existsSync(path('new.db-wal'))).toBe(false);
    // A store that was there stays, with what it held.
    const before = (await gridquote(['export', '--db', path('r.db')])).stdout;
    expect((await gridquote(['ingest', '--db', path('r.db'), path('bad.ndjson')])).code).toBe(1);
    expect((await gridquote(['export', '--db', path('r.db')])).stdout).toBe(before);

    // Two ingests creating one new file at once: the refused one never removes what the other stored.
    writeFileSync(path('good.ndjson'), `${lines.join('\n')}\n`);
    const [good, bad] = await Promise.all([
      gridquote(['ingest', '--db', path('race.db'), path('good.ndjson')]),
      gridquote(['ingest', '--db', path('race.db'), path('bad.ndjson')]),
    ]);
    expect(good.code, good.stderr).toBe(0);
    expect(bad.code).toBe(1);
    expect((await gridquote(['export', '--db', path('race.db')])).stdout).toBe(before);
    // Two valid ones: the first in place keeps its store; the other adds nothing and says to run again.
    const both = await Promise.all(
      ['twin.db', 'twin.db'].map((name) => gridquote(['ingest', '--db', path(name), path('good.ndjson')])),
    );
    expect(both.map((result) => result.code).sort()).toEqual([0, 1]);
    expect(both.find((result) => result.code === 1)?.stderr).toMatch(
      /^gridquote: another process created .*twin\.db while this ingest ran, so nothing was added to it; the feed is valid: run the ingest again/,
    );
    expect((await gridquote(['export', '--db', path('twin.db')])).stdout).toBe(before);
    expect(readdirSync(directory).filter((name) => name.includes('.ingest-'))).toEqual([]);
  });

  it('removes what an ingest killed while building a new store left, and nothing another process may be writing', async () => {
    await gridquote(['seed', '--db', path('k.db'), '--days', '1', '--until', '20250221']);
    writeFileSync(path('k.ndjson'), (await gridquote(['export', '--db', path('k.db')])).stdout);
    const folder = path('killed');
    mkdirSync(folder);
    const ended = spawnSync(process.execPath, ['-e', '']).pid;
    const build = (pid: number, suffix: string) => `.store.db.ingest-${pid}-${suffix}`;
    const lastHour = new Date(Date.now() - 3_600_000);
    const leave = (name: string, old: boolean) => {
      for (const file of [name, `${name}-wal`]) {
        writeFileSync(join(folder, file), 'partial');
        if (old) utimesSync(join(folder, file), lastHour, lastHour);
      }
    };
    leave(build(ended, 'aaaaaaaa'), true); // abandoned: removed
    leave(build(ended, 'bbbbbbbb'), false); // its process ended, but its files changed a moment ago: kept
    leave(build(process.pid, 'cccccccc'), true); // a process that runs: kept
    writeFileSync(join(folder, '.other.db.ingest-1-dddddddd'), 'partial'); // another target's: kept

    const loaded = await gridquote(['ingest', '--db', join(folder, 'store.db'), path('k.ndjson')]);
    expect(loaded.code, loaded.stderr).toBe(0);
    expect(loaded.stderr).toMatch(
      new RegExp(
        `^removed .*\\.store\\.db\\.ingest-${ended}-aaaaaaaa, a store an earlier ingest \\(process ${ended}, ended\\) did not finish\n`,
      ),
    );
    expect(readdirSync(folder).sort()).toEqual(
      [
        '.other.db.ingest-1-dddddddd',
        build(ended, 'bbbbbbbb'),
        `${build(ended, 'bbbbbbbb')}-wal`,
        build(process.pid, 'cccccccc'),
        `${build(process.pid, 'cccccccc')}-wal`,
        'store.db',
      ].sort(),
    );
  });

  it.runIf(probe !== undefined)(
    'puts no store in place when the disk fills as a new store is finished, nor says it ingested',
    async () => {
      await gridquote(['seed', '--db', path('w.db'), '--days', '3', '--until', '20250221']);
      writeFileSync(path('w.ndjson'), (await gridquote(['export', '--db', path('w.db')])).stdout);
      // Room for the feed's one transaction in the write-ahead log, not for it and the file both.
      const disk = smallDisk(10);
      if (disk === undefined) throw new Error('the tmpfs mounted a moment ago cannot be mounted');
      try {
        const refused = await gridquote(['ingest', '--db', join(disk.folder, 'new.db'), path('w.ndjson')]);
        expectOneLineError(
          refused,
          /^gridquote: could not finish .*new\.db: the new store's write-ahead log could not be merged into it \(is the disk full\?\), so nothing was added; free some space and run the ingest again\n$/,
        );
        expect(readdirSync(disk.folder)).toEqual([]);
      } finally {
        disk.unmount();
      }
    },
  );

  it('refuses a bad feed in one line, leaving the store unchanged', async () => {
    await gridquote(['seed', '--db', path('g.db'), '--days', '1', '--until', '20250221']);
    const before = (await gridquote(['export', '--db', path('g.db')])).stdout;
    const good = before.split('\n').slice(0, 11);
    const bad =
      '{"type":"trade","date":"20250224","seq":1,"time":"100000","code":"XXH2026","price":"1.00","volume":1,"trade_type":"N","block":false}';
    writeFileSync(path('bad.ndjson'), [...good, bad].join('\n'));
    const refused = await gridquote(['ingest', '--db', path('g.db'), path('bad.ndjson')]);
    expectOneLineError(refused, /^gridquote: line 12: unknown contract code XXH2026\n$/);
    writeFileSync(path('two.ndjson'), [bad, '{"type":', ...good].join('\n'));
    const two = await gridquote(['ingest', '--db', path('g.db'), path('two.ndjson')]);
    expectOneLineError(
      two,
      /^gridquote: 2 invalid lines, nothing stored: line 1: unknown contract code XXH2026; line 2: invalid JSON/,
    );
    expect((await gridquote(['export', '--db', path('g.db')])).stdout).toBe(before);
  });

  it('reports usage errors and missing files in one line with a non-zero exit code', async () => {
    vi.stubEnv('GRIDQUOTE_DB', undefined);
    try {
      expectOneLineError(
        await gridquote(['seed']),
        /seed needs a store: pass --db STORE or set GRIDQUOTE_DB/,
      );
    } finally {
      vi.unstubAllEnvs();
    }
    expectOneLineError(
      await gridquote(['seed', '--db', path('h.db'), '--days', '0']),
      /--days.*whole number of days/,
    );
    expectOneLineError(
      await gridquote(['seed', '--db', path('h.db'), '--until', '20251131']),
      /--until.*expected a date yyyyMMdd/,
    );
    // Mon 24 Feb 2025 19:00 in Sydney: that day is over, the next one is not.
    expectOneLineError(
      await gridquote(['seed', '--db', path('h.db'), '--days', '1', '--until', '20250225']),
      /^gridquote: --until 20250225 names a trading day \(20250225\) that is not over yet: the last completed one is 20250224\./,
    );
    expectOneLineError(
      await gridquote(['seed', '--db', path('h.db'), '--days', '2', '--until', '20000104']),
      /^gridquote: 2 trading days up to 20000104 would start in 1999, and the feed's dates run from 2000/,
    );
    // Refused before a store is made.
    expect(existsSync(path('h.db'))).toBe(false);
    expectOneLineError(
      await gridquote(['export', '--db', path('h.db'), '--date', '2025-02-21']),
      /expected a date/,
    );
    expectOneLineError(
      await gridquote(['export', '--db', path('missing.db')]),
      /^gridquote: no store at .*missing\.db; create one with gridquote seed or ingest\n$/,
    );
    expectOneLineError(
      await gridquote(['ingest', '--db', path('h.db'), path('missing.ndjson')]),
      /cannot read .*missing\.ndjson: no such file/,
    );
    expectOneLineError(await gridquote(['frobnicate']), /unknown command 'frobnicate'/);
    const help = await gridquote(['seed', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Seeding is idempotent/);
  });
});
