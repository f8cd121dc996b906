import { describe, expect, it } from 'vitest';
import type { ValidatedEvent } from '../../store/store.js';
import { FRAMES_ENTRY_OVERHEAD, SharedDay } from './shared-day.js';
import { StreamItem } from './stream-items.js';

/** Items whose events SharedDay never looks at. */
function items(date: string, seqs: readonly number[]): StreamItem[] {
  return seqs.map((seq) => new StreamItem(date, seq, {} as ValidatedEvent));
}

describe('SharedDay', () => {
  it("keeps the latest day's gap-free prefix and serves pages of it to every reader", () => {
    const day = new SharedDay();
    expect(day.page({ date: '20250228', seq: 0 }, 10)).toBeUndefined();
    const first = items('20250228', [1, 2, 3]);
    day.keep('20250228', first);
    expect(day.page({ date: '20250228', seq: 0 }, 2)).toEqual(first.slice(0, 2));
    expect(day.page({ date: '20250228', seq: 1 }, 10)).toEqual(first.slice(1));
    // Past the prefix: the store is asked.
    expect(day.page({ date: '20250228', seq: 3 }, 10)).toBeUndefined();
    // A read that continues the prefix extends it; one with a gap stops at the gap.
    day.keep('20250228', items('20250228', [4, 5, 7, 8]));
    expect(day.page({ date: '20250228', seq: 3 }, 10)?.map((item) => item.seq)).toEqual([4, 5]);
    expect(day.page({ date: '20250228', seq: 5 }, 10)).toBeUndefined();
    // A read that does not start at the prefix's end adds nothing.
    day.keep('20250228', items('20250228', [7, 8]));
    expect(day.page({ date: '20250228', seq: 5 }, 10)).toBeUndefined();
    // An earlier day is not kept; a later one replaces the day.
    day.keep('20250227', items('20250227', [1, 2]));
    expect(day.page({ date: '20250227', seq: 0 }, 10)).toBeUndefined();
    day.keep('20250303', items('20250303', [1]));
    expect(day.page({ date: '20250228', seq: 0 }, 10)).toBeUndefined();
    expect(day.page({ date: '20250303', seq: 0 }, 10)?.length).toBe(1);
  });

  it('encodes a selection’s frames of a page once, and apart for another selection or page', () => {
    const day = new SharedDay();
    const page = items('20250228', [1, 2]);
    day.keep('20250228', page);
    let made = 0;
    const make = (text: string) => () => {
      made += 1;
      return { text, count: 2 };
    };
    const a = day.frames('a', page, make('one\n\ntwo\n\n'));
    const again = day.frames('a', page, make('other'));
    expect(again).toBe(a);
    expect(a.bytes.toString()).toBe('one\n\ntwo\n\n');
    expect(made).toBe(1);
    expect(day.frames('b', page, make('b')).bytes.toString()).toBe('b');
    expect(day.frames('a', page.slice(1), make('two')).bytes.toString()).toBe('two');
    expect(made).toBe(3);
  });

  it('counts what a kept page costs beyond its bytes: empty pages at many resume positions are dropped, not piled up', () => {
    const day = new SharedDay();
    const page = items(
      '20250228',
      Array.from({ length: 40_001 }, (_, index) => index + 1),
    );
    day.keep('20250228', page);
    let made = 0;
    const nothing = () => {
      made += 1;
      return { text: '', count: 0 };
    };
    const first = day.frames('none', page.slice(0, 1), nothing);
    // A stream resuming at every position of the day, with a selection that matches nothing there.
    for (let seq = 1; seq <= 40_000; seq++) day.frames('none', page.slice(seq, seq + 1), nothing);
    expect(made).toBe(40_001);
    // 40,000 pages past 16 MiB at FRAMES_ENTRY_OVERHEAD each: the first is gone (at 5 bytes each it stayed).
    expect(40_000 * FRAMES_ENTRY_OVERHEAD).toBeGreaterThan(16 * 1024 * 1024);
    expect(day.frames('none', page.slice(0, 1), nothing)).not.toBe(first);
  });
});
