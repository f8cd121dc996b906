import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seededStore } from '../../test/fixtures.js';
import type { AppendNotice } from '../store/store.js';
import { startIngestThread } from './ingest-thread.js';

const dir = mkdtempSync(join(tmpdir(), 'gridquote-ingest-thread-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the ingest thread', () => {
  it('stores batches through its own connection and tells the server of each commit at once', async () => {
    const path = join(dir, 'thread.db');
    const { store, simulator } = seededStore({ path, days: 1, until: '20250227' });
    const notices: AppendNotice[] = [];
    const stop = store.onAppend((notice) => notices.push(notice));
    const thread = await startIngestThread(path, store);
    try {
      const day = simulator.simulateDay('20250228');
      const morning = day.filter((event) => event.time < '110000');
      const before = await store.reader.version();
      const started = process.hrtime.bigint();
      const batch = await thread.ingest(morning);
      expect(batch.result.added).toBe(morning.length);
      expect(batch.version).toBe(before + morning.length);
      expect(batch.committedAtNs).toBeGreaterThan(started);
      // Told by message, not by the next poll (every STORE_POLL_MS): the notice is already here.
      expect(notices.at(-1)).toMatchObject({ version: batch.version, dates: ['20250228'] });
      expect(await store.reader.version()).toBe(batch.version);

      // A refused batch stores nothing and says why; the thread goes on with the next one.
      const broken = { ...day[day.length - 1], type: 'nonsense' } as unknown as (typeof day)[number];
      await expect(thread.ingest([broken])).rejects.toThrow(/event 1: /);
      const rest = day.filter((event) => event.time >= '110000');
      const after = await thread.ingest(rest);
      expect(after.version).toBe(before + day.length);
      expect(notices.at(-1)?.version).toBe(after.version);
      // Replays are idempotent there as anywhere.
      expect((await thread.ingest(morning)).result).toEqual({ added: 0, skipped: morning.length });
    } finally {
      await thread.close();
      stop();
      await store.close();
    }
  });
});
