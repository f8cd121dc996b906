import { describe, expect, it } from 'vitest';
import { comparePositions, formatEventId, parseEventId } from './event-id.js';
import { sseComment, sseEvent, sseRetry } from './sse.js';

describe('SSE framing', () => {
  it('writes id, event and data lines and ends the event with a blank line', () => {
    expect(sseEvent({ id: '20261124-000001', event: 'trade', data: '{"a":"1"}' })).toBe(
      'id: 20261124-000001\nevent: trade\ndata: {"a":"1"}\n\n',
    );
    expect(sseEvent({ event: 'error', data: '{}' })).toBe('event: error\ndata: {}\n\n');
  });

  it('splits multi-line data into data lines, so the client joins it back', () => {
    expect(sseEvent({ event: 'x', data: 'a\nb\r\nc' })).toBe('event: x\ndata: a\ndata: b\ndata: c\n\n');
  });

  it('refuses a line break in a one-line field', () => {
    expect(() => sseEvent({ event: 'a\nb', data: '' })).toThrow(RangeError);
    expect(() => sseComment('a\rb')).toThrow(RangeError);
  });

  it('writes comments and retry hints', () => {
    expect(sseComment('heartbeat')).toBe(': heartbeat\n\n');
    expect(sseRetry(2_500)).toBe('retry: 2500\n\n');
  });
});

describe('event ids', () => {
  it('round-trips a position as yyyyMMdd-seq with at least six digits', () => {
    expect(formatEventId({ date: '20261124', seq: 1234 })).toBe('20261124-001234');
    expect(formatEventId({ date: '20261124', seq: 12_345_678 })).toBe('20261124-12345678');
    expect(parseEventId('20261124-001234')).toEqual({ date: '20261124', seq: 1234 });
  });

  it('refuses what this server never writes', () => {
    for (const text of [
      '',
      'abc',
      '20261124',
      '20261124-',
      '20261131-000001',
      '20261124-000000',
      '2026112-1',
      '20261124-1-2',
      '20261124-1234',
      '20261124-0001234',
      '20261124-012345678',
    ]) {
      expect(parseEventId(text)).toBeUndefined();
    }
  });

  it('orders by date, then seq', () => {
    expect(comparePositions({ date: '20261124', seq: 9 }, { date: '20261125', seq: 1 })).toBeLessThan(0);
    expect(comparePositions({ date: '20261124', seq: 9 }, { date: '20261124', seq: 10 })).toBeLessThan(0);
    expect(comparePositions({ date: '20261124', seq: 9 }, { date: '20261124', seq: 9 })).toBe(0);
  });
});
