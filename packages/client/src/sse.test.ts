import { describe, expect, it } from 'vitest';
import { SseParser } from './sse.js';

describe('SseParser', () => {
  const stream =
    'id: 20261124-000001\nevent: trade\ndata: {"a":"1"}\n\n: heartbeat\n\nevent: x\ndata: a\ndata: b\n\n';

  it('reads events, joins data lines, keeps the last id and skips comments', () => {
    expect(new SseParser().push(stream)).toEqual([
      { id: '20261124-000001', event: 'trade', data: '{"a":"1"}' },
      { id: '20261124-000001', event: 'x', data: 'a\nb' },
    ]);
  });

  it('gives the same events whatever the chunking, also with \\r\\n line ends', () => {
    const crlf = stream.replaceAll('\n', '\r\n');
    const whole = new SseParser().push(crlf);
    for (const size of [1, 2, 3, 7]) {
      const parser = new SseParser();
      const events = [];
      for (let i = 0; i < crlf.length; i += size) events.push(...parser.push(crlf.slice(i, i + size)));
      expect(events).toEqual(whole);
    }
    expect(whole).toHaveLength(2);
  });

  it('holds an event back until its blank line, defaults the kind to message and reads retry', () => {
    const parser = new SseParser('20261124-000009');
    expect(parser.push('retry: 2500\n\ndata: half')).toEqual([]);
    expect(parser.retryMs).toBe(2500);
    expect(parser.push('\n\n')).toEqual([{ id: '20261124-000009', event: 'message', data: 'half' }]);
  });
});
