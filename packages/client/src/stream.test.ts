import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { GridquoteClient } from './client.js';
import { GridquoteError } from './errors.js';
import type { StreamEvent } from './stream-events.js';

/**
 * A stand-in event stream (the protocol of GET /api/stream: id = date-seq, event = kind, data =
 * the record), scripted per connection, so each way a connection can end is tested exactly.
 */
const EVENTS = Array.from({ length: 10 }, (_, i) => ({
  id: `20261124-${String(i + 1).padStart(6, '0')}`,
  data: {
    time: `2026112410${String(i).padStart(4, '0')}`,
    code: 'BNH2026',
    type: 'trade',
    price: '84.50',
    volume: String(i + 1),
  },
}));

function frame(event: (typeof EVENTS)[number]): string {
  return `id: ${event.id}\nevent: trade\ndata: ${JSON.stringify(event.data)}\n\n`;
}

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

async function serve(
  handler: (request: IncomingMessage, response: ServerResponse, connection: number) => void,
) {
  let connections = 0;
  server = createServer((request, response) => handler(request, response, connections++));
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return new GridquoteClient({ baseUrl: `http://127.0.0.1:${port}`, key: 'gq_000000000000_test' });
}

function startStream(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
  response.write(': heartbeat\n\n');
}

async function take(events: AsyncIterable<StreamEvent>, count: number): Promise<StreamEvent[]> {
  const taken: StreamEvent[] = [];
  for await (const event of events) {
    taken.push(event);
    if (taken.length === count) break;
  }
  return taken;
}

describe('the stream iterator', () => {
  it('resumes after each dropped connection from the last event it yielded, without gap or repeat', async () => {
    const lastIds: (string | undefined)[] = [];
    const client = await serve((request, response) => {
      const after = request.headers['last-event-id'] as string | undefined;
      lastIds.push(after);
      expect(request.headers.authorization).toBe('Bearer gq_000000000000_test');
      const start = after === undefined ? 0 : EVENTS.findIndex((event) => event.id === after) + 1;
      startStream(response);
      // Three events per connection, then the connection dies mid-way through a fourth.
      response.write(
        EVENTS.slice(start, start + 3)
          .map(frame)
          .join(''),
      );
      const next = EVENTS[start + 3];
      if (next === undefined) return;
      response.write(frame(next).slice(0, 20));
      setImmediate(() => response.socket?.destroy());
    });
    const calls: string[] = [];
    const events = await take(
      client.stream(
        { futures: 'BNH' },
        {
          reconnectDelayMs: 10,
          onOpen: () => calls.push('open'),
          onReconnect: () => calls.push('reconnect'),
        },
      ),
      EVENTS.length,
    );
    expect(calls).toEqual(['open', 'reconnect', 'open', 'reconnect', 'open', 'reconnect', 'open']);
    expect(events.map((event) => event.id)).toEqual(EVENTS.map((event) => event.id));
    expect(events.map((event) => event.data)).toEqual(EVENTS.map((event) => event.data));
    expect(lastIds).toEqual([undefined, '20261124-000003', '20261124-000006', '20261124-000009']);
  });

  it('starts after a given lastEventId and reconnects after a 503 error event, but stops at any other', async () => {
    const lastIds: (string | undefined)[] = [];
    const client = await serve((request, response, connection) => {
      lastIds.push(request.headers['last-event-id'] as string | undefined);
      startStream(response);
      if (connection === 0) {
        response.end(
          `${frame(EVENTS[5] as (typeof EVENTS)[number])}retry: 20\n\nevent: error\ndata: {"type":"tag:gridquote,2025:problems/slow-consumer","title":"Stream closed","status":503,"detail":"read faster"}\n\n`,
        );
      } else {
        response.end(
          'event: error\ndata: {"type":"tag:gridquote,2025:problems/event-id-unavailable","title":"Event id not available","status":410,"detail":"too old"}\n\n',
        );
      }
    });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const event of client.stream(
        { market: 'au_electricity' },
        { lastEventId: '20261124-000005' },
      )) {
        seen.push(event.id);
      }
    })().catch((caught: unknown) => caught);
    expect(seen).toEqual(['20261124-000006']);
    expect(lastIds).toEqual(['20261124-000005', '20261124-000006']);
    expect(error).toBeInstanceOf(GridquoteError);
    expect(error).toMatchObject({ status: 410, code: 'event-id-unavailable' });
  });

  it('does not retry a refused connection, and gives up after a bound of failed ones', async () => {
    const refusing = await serve((_request, response) => {
      response.writeHead(401, { 'content-type': 'application/problem+json' });
      response.end(
        '{"type":"tag:gridquote,2025:problems/unauthorized","title":"Missing or invalid API key","status":401,"detail":"no"}',
      );
    });
    await expect(take(refusing.stream({ futures: 'BNH' }), 1)).rejects.toMatchObject({ status: 401 });
    await new Promise((resolve) => server?.close(resolve));

    let attempts = 0;
    const dropping = await serve((_request, response) => {
      attempts++;
      response.socket?.destroy();
    });
    await expect(
      take(dropping.stream({ futures: 'BNH' }, { maxReconnects: 2, reconnectDelayMs: 5 }), 1),
    ).rejects.toThrow(/failed 3 times in a row/);
    expect(attempts).toBe(3);
  });
});
