import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sharedFrames, writeFrames } from './shared-frames.js';

const FRAMES = 'id: 20261124-000001\nevent: trade\ndata: {"price":"1.5","note":"é"}\n\n';

const servers: ReturnType<typeof createServer>[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/**
 * The raw bytes a server sends for one request (`request` is the request's text) when its
 * handler writes the head, `retry`, then the frames with `write`, then ends the response.
 */
async function wireBytes(request: string, write: (response: ServerResponse) => void): Promise<string> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream', date: 'fixed' });
    response.write('retry: 1000\n\n');
    write(response);
    response.end();
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const socket = connect(address.port, '127.0.0.1');
  socket.write(request);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  await once(socket, 'end');
  socket.destroy();
  return Buffer.concat(chunks).toString('utf8');
}

describe('shared frames', () => {
  it('keep the frames, and the same bytes as one chunk of a chunked body', () => {
    const frames = sharedFrames(FRAMES, 1);
    expect(frames.bytes.toString()).toBe(FRAMES);
    const length = Buffer.byteLength(FRAMES);
    expect(frames.chunk.toString()).toBe(`${length.toString(16)}\r\n${FRAMES}\r\n`);
    expect(frames.count).toBe(1);
  });

  it('go on the wire exactly as ServerResponse.write sends them, chunked (HTTP/1.1)', async () => {
    const request = 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';
    const frames = sharedFrames(FRAMES, 1);
    const direct = await wireBytes(request, (response) => {
      writeFrames(response, frames);
      writeFrames(response, frames);
    });
    const written = await wireBytes(request, (response) => {
      response.write(FRAMES);
      response.write(FRAMES);
    });
    expect(direct).toContain('Transfer-Encoding: chunked');
    expect(direct).toBe(written);
  });

  it('write nothing when there are none (an empty chunk would end the body)', async () => {
    const request = 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';
    const none = sharedFrames('', 0);
    const direct = await wireBytes(request, (response) => writeFrames(response, none));
    const written = await wireBytes(request, () => {});
    expect(direct).toBe(written);
  });

  it('go through the response when it is not chunked (HTTP/1.0)', async () => {
    const request = 'GET / HTTP/1.0\r\n\r\n';
    const frames = sharedFrames(FRAMES, 1);
    const direct = await wireBytes(request, (response) => writeFrames(response, frames));
    const written = await wireBytes(request, (response) => response.write(FRAMES));
    expect(direct).not.toContain('chunked');
    expect(direct).toBe(written);
    expect(direct.endsWith(`retry: 1000\n\n${FRAMES}`)).toBe(true);
  });

  it('count in the response’s writableLength, so the slow-consumer bound sees them', async () => {
    const frames = sharedFrames(FRAMES, 1);
    let queued = -1;
    await wireBytes('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', (response) => {
      const before = response.writableLength;
      // The socket is corked by the response's own writes this tick: the chunk waits in it.
      writeFrames(response, frames);
      queued = response.writableLength - before;
    });
    expect(queued).toBe(frames.chunk.length);
  });
});
