import type { RequestListener, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

/**
 * The fast lane's answers of one event-loop turn leave together, after the turn's other
 * requests have been read and answered, instead of one by one as each is made.
 *
 * A send to a client on this host (a local reverse proxy, a sidecar, a load generator) that is
 * asleep in epoll wakes it inside the send, and on a virtual machine a wake-up on another core is
 * an inter-processor interrupt that the sending thread waits for: perf put 15 % of a busy server's
 * CPU in `sock_def_readable`, the reader being woken, about once per answer (docs/benchmarks.md,
 * HTTP). Sent back to back, a turn's answers find the client woken by the first and still
 * reading: under wrk with 8 connections, 4-6 µs less CPU per cached answer, 13-21 % more answers
 * a second. What an answer waits is the rest of its turn's cached answers, at most MAX_HELD of
 * them; a turn with one request sends it as before, a few µs later. The price is in the tail on a
 * busy host: a pause of the serving thread mid-turn delays every answer held, where unheld ones
 * had gone (a p99 up to a third higher on a slower machine, docs/benchmarks.md, HTTP, "evening").
 *
 * How: ServerResponse.end() uncorks its socket, which sends what the answer wrote. While
 * `endTogether` ends an answer, the socket's last uncork is held instead, and released in the
 * turn's check phase (setImmediate runs right after the poll phase that read the requests), at
 * once when MAX_HELD sockets wait, or before longer work of the same turn (sendHeld). Only that
 * call is held: every other uncork of the socket (Node's own, a later answer's, a stream's) goes
 * through unchanged, so bytes and their order on each connection are as before, and a socket
 * closed meanwhile fails its write as it would have.
 */

/** Held sockets are released once this many wait: bounds what the first of a long turn waits. */
const MAX_HELD = 16;

const uncork = Socket.prototype.uncork;
const held: Socket[] = [];
let holding = false;
let releaseScheduled = false;

/** Ends `response` (with `body` when given), its bytes sent with the turn's other answers. */
export function endTogether(response: ServerResponse, body?: Buffer): void {
  const { socket } = response;
  if (socket === null) {
    response.end(body);
    return;
  }
  // Set once per connection (the same property on every socket keeps them one shape for V8).
  if (socket.uncork !== holdUncork) socket.uncork = holdUncork;
  // end() corks only to write a body: corked here, an answer without one (304, HEAD) is held too.
  socket.cork();
  holding = true;
  try {
    if (body === undefined) response.end();
    else response.end(body);
  } finally {
    holding = false;
  }
}

function holdUncork(this: Socket): void {
  // Only the uncork that would send is held (Node nests cork and uncork inside end()).
  if (!holding || this.writableCorked !== 1) {
    uncork.call(this);
    return;
  }
  held.push(this);
  if (held.length >= MAX_HELD) release();
  else if (!releaseScheduled) {
    releaseScheduled = true;
    setImmediate(releaseAfterTurn);
  }
}

/**
 * Sends the held answers now: called before work that may hold the thread for milliseconds in the
 * same turn (a request for Fastify, a stream's fan-out), which the held answers need not wait for.
 */
export function sendHeld(): void {
  if (held.length > 0) release();
}

/** `handler`, sending the held answers before it runs (the requests the fast lane hands on). */
export function sendingHeldFirst(handler: RequestListener): RequestListener {
  return (request, response) => {
    sendHeld();
    handler(request, response);
  };
}

function releaseAfterTurn(): void {
  releaseScheduled = false;
  release();
}

function release(): void {
  // Taken first: a release's write may end up in code that holds again.
  const sockets = held.splice(0);
  for (const socket of sockets) uncork.call(socket);
}
