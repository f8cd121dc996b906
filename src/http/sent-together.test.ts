import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { endTogether, sendHeld, sendingHeldFirst } from './sent-together.js';

const BODY = Buffer.from('{"date":"20250220","data":[]}');

let servers: Server[] = [];
afterEach(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  servers = [];
});

type Pending = { request: IncomingMessage; response: ServerResponse };

/** A server that answers nothing by itself: each request waits in `pending` for the test. */
async function heldServer(): Promise<{
  url: string;
  pending: Pending[];
  arrived: (n: number) => Promise<void>;
}> {
  const pending: Pending[] = [];
  const waiters: (() => void)[] = [];
  const server = createServer((request, response) => {
    pending.push({ request, response });
    for (const wake of waiters.splice(0)) wake();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  const arrived = async (n: number) => {
    while (pending.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, pending, arrived };
}

function answer({ response }: Pending, end: (response: ServerResponse) => void): void {
  response.writeHead(200, ['content-type', 'application/json', 'content-length', String(BODY.length)]);
  end(response);
}

/** Bytes of the answer still in the socket's buffer (not yet handed to the kernel). */
const unsent = ({ request }: Pending) => request.socket.writableLength;

describe('endTogether', () => {
  it('sends the answers ended in one turn after the turn, bytes and order as end() sends them', async () => {
    const { url, pending, arrived } = await heldServer();
    const answers = [1, 2, 3].map(() => fetch(`${url}/a`));
    await arrived(3);
    for (const request of pending) answer(request, (response) => endTogether(response, BODY));
    // Held: a plain end() hands a small answer to the kernel at once (checked below).
    expect(pending.map(unsent).every((bytes) => bytes > BODY.length)).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(pending.map(unsent)).toEqual([0, 0, 0]);
    for (const got of await Promise.all(answers)) {
      expect(got.status).toBe(200);
      expect(Buffer.from(await got.arrayBuffer())).toEqual(BODY);
    }
  });

  it('holds no more than 16 answers: the 16th sends them all', async () => {
    const { url, pending, arrived } = await heldServer();
    const answers = Array.from({ length: 17 }, () => fetch(`${url}/a`));
    await arrived(17);
    const first = pending[0] as Pending;
    for (const request of pending.slice(0, 15)) answer(request, (response) => endTogether(response, BODY));
    expect(unsent(first)).toBeGreaterThan(0);
    answer(pending[15] as Pending, (response) => endTogether(response, BODY));
    expect(pending.slice(0, 16).map(unsent)).toEqual(Array(16).fill(0));
    answer(pending[16] as Pending, (response) => endTogether(response, BODY));
    expect(unsent(pending[16] as Pending)).toBeGreaterThan(0);
    expect((await Promise.all(answers)).map((got) => got.status)).toEqual(Array(17).fill(200));
  });

  it('leaves every other write of the connection as it was: a plain end() later sends at once', async () => {
    const { url, pending, arrived } = await heldServer();
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const ask = (path: string) => socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
    ask('/a');
    await arrived(1);
    answer(pending[0] as Pending, (response) => endTogether(response, BODY));
    await once(socket, 'data');
    // The same connection, its next answer ended plainly.
    ask('/b');
    await arrived(2);
    expect(pending[1]?.request.socket).toBe(pending[0]?.request.socket);
    answer(pending[1] as Pending, (response) => response.end(BODY));
    expect(unsent(pending[1] as Pending)).toBe(0);
    while (Buffer.concat(received).toString().split('HTTP/1.1 200').length < 3) await once(socket, 'data');
    socket.destroy();
  });

  it('keeps pipelined answers of one connection in order', async () => {
    const { url, pending, arrived } = await heldServer();
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    // Both requests in one write: Node holds the second answer until the first has gone.
    socket.write('GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\n');
    await arrived(2);
    for (const [index, request] of pending.entries()) {
      request.response.writeHead(200, ['content-length', '1']);
      endTogether(request.response, Buffer.from(String(index + 1)));
    }
    const text = () => Buffer.concat(received).toString();
    while (text().split('HTTP/1.1 200').length < 3) await once(socket, 'data');
    expect(text().match(/\r\n\r\n\d/g)).toEqual(['\r\n\r\n1', '\r\n\r\n2']);
    socket.destroy();
  });

  it('sends a 304 or HEAD answer, without a body, the same way', async () => {
    const { url, pending, arrived } = await heldServer();
    const answers = [fetch(`${url}/a`), fetch(`${url}/a`, { method: 'HEAD' })];
    await arrived(2);
    (pending[0] as Pending).response.writeHead(304, ['etag', '"v1"']);
    endTogether((pending[0] as Pending).response);
    answer(pending[1] as Pending, (response) => endTogether(response));
    expect(pending.map(unsent).every((bytes) => bytes > 0)).toBe(true);
    const [notModified, head] = await Promise.all(answers);
    expect(notModified?.status).toBe(304);
    expect(notModified?.headers.get('etag')).toBe('"v1"');
    expect(head?.headers.get('content-length')).toBe(String(BODY.length));
  });

  it('sends the held answers before a handed-on request is handled, and at once when asked', async () => {
    const { url, pending, arrived } = await heldServer();
    const answers = [fetch(`${url}/a`), fetch(`${url}/b`)];
    await arrived(2);
    const [first, second] = pending as [Pending, Pending];
    answer(first, (response) => endTogether(response, BODY));
    expect(unsent(first)).toBeGreaterThan(0);
    let unsentWhenHandled = -1;
    sendingHeldFirst(() => {
      unsentWhenHandled = unsent(first);
    })(second.request, second.response);
    expect(unsentWhenHandled).toBe(0);
    answer(second, (response) => endTogether(response, BODY));
    expect(unsent(second)).toBeGreaterThan(0);
    sendHeld();
    expect(unsent(second)).toBe(0);
    expect((await Promise.all(answers)).map((got) => got.status)).toEqual([200, 200]);
  });

  it('drops the answer of a connection closed while it was held, and serves on', async () => {
    const { url, pending, arrived } = await heldServer();
    const lost = fetch(`${url}/a`).catch((error: unknown) => error);
    await arrived(1);
    const held = pending[0] as Pending;
    const closed = once(held.response, 'close');
    answer(held, (response) => endTogether(response, BODY));
    held.request.socket.destroy();
    await closed;
    expect(await lost).toBeInstanceOf(Error);
    const next = fetch(`${url}/b`);
    await arrived(2);
    answer(pending[1] as Pending, (response) => endTogether(response, BODY));
    expect((await next).status).toBe(200);
  });
});
