import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { seededStore } from '../../../test/fixtures.js';
import { endTogether } from '../sent-together.js';
import type { Batch } from './stream-hub.js';
import { StreamHub } from './stream-hub.js';

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A fast-lane answer held on a real connection (sent-together.ts): its socket. */
async function heldAnswer(): Promise<Socket> {
  const responses: ServerResponse[] = [];
  const server = createServer((_request, response) => responses.push(response));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  void fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`).catch(() => undefined);
  while (responses.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  const response = responses[0] as ServerResponse;
  const socket = response.socket as Socket;
  response.writeHead(200, ['content-length', '2']);
  endTogether(response, Buffer.from('ok'));
  return socket;
}

describe('StreamHub', () => {
  it("sends the fast lane's held answers before a fan-out", async () => {
    const { store, dates } = seededStore({ days: 1 });
    closers.push(() => store.close());
    const date = dates.at(-1) as string;
    const stored = await store.events.after({ date, seq: 0, limit: 1_000_000 });
    const lastSeq = stored.at(-1)?.seq ?? 0;
    const hub = new StreamHub(store, 100);
    const delivered: { batch: Batch; unsent: number }[] = [];
    const socket = await heldAnswer();
    hub.join({
      cursor: { date, seq: lastSeq - 3 },
      deliver(batch) {
        delivered.push({ batch, unsent: socket.writableLength });
        return batch.items.length;
      },
      fail(error) {
        throw error;
      },
    });
    expect(socket.writableLength).toBeGreaterThan(0);
    hub.committed();
    while (delivered.length === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(delivered[0]?.batch.items.map((item) => item.seq)).toEqual([lastSeq - 2, lastSeq - 1, lastSeq]);
    expect(delivered[0]?.unsent).toBe(0);
  });
});
