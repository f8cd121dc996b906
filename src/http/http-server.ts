import { type IncomingMessage, Server, type ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { HttpLimits } from './limits.js';

/**
 * The Node HTTP server under the app: the limits of limits.ts applied, and a shutdown that
 * never truncates an answer.
 *
 * Node's closeIdleConnections (which server.close() calls) destroys every socket whose
 * response has been *ended*, even when that response is still being flushed to a slow
 * reader: the client gets a cut-off body. Here a socket is closed only once all its responses
 * have been handed to the kernel; a socket without any is closed at once (an idle keep-alive
 * connection, or one that has not sent a request yet).
 *
 * The bookkeeping costs a request two Map writes: the socket's latest response is noted, and
 * forgotten once it closes (a tick after its last byte is with the kernel, or when the connection
 * is lost). A socket's responses go out in order, so its latest being flushed means all of them
 * are. Forgetting it matters: a kept-alive connection's last response (and through it its
 * request, headers and listeners, about 2 KB) would otherwise stay alive until the connection's
 * next request: 4 MB of heap for 2,000 polling connections (heap snapshots, docs/benchmarks.md).
 * It is forgotten at 'close', not 'finish': with a 'finish' listener of our own running after
 * Node's (any listener added with on()), every young-generation collection under 2,000 polling
 * connections kept 2.5 MB alive instead of 0.8 MB and paused the server twice as long, the same
 * with a listener that does nothing; with V8's allocation-site pretenuring off it did not happen
 * (docs/benchmarks.md, "Live pollers").
 *
 * The idle timeout (limits.ts) is a sweep, not Node's per-socket timer (server.setTimeout): that
 * timer is made anew for every request and moved on every read and write, which cost a bare
 * node:http server about 2 µs of CPU per cached answer (docs/benchmarks.md, "The serve path's hot
 * path"). A few times per period the sweep looks at the sockets with an answer under way (a
 * request received and its response not yet flushed, which the shutdown bookkeeping above
 * already knows) and destroys those whose traffic has not moved for the period: the same rule
 * as Node's timer, which its reads and every write handed to the socket reset. Before a
 * connection's first request Node's request timeout closes it.
 *
 * Between requests the keep-alive timeout closes an idle connection, and the same sweep applies
 * it. Node arms it after every answer as a socket timer of its own (a new timer and a bound
 * function each time, `socket.setTimeout(keepAliveTimeout + 1 s)`), which the next request
 * disarms: with pollers asking every half second, nearly every one outlived a young-generation
 * collection and was promoted, a sixth of what survived them under 2,000 polling connections
 * (docs/benchmarks.md, "Live pollers"). Each socket's setTimeout is replaced (setTimeoutBySweep):
 * Node's keep-alive calls only note the socket's limit, which the sweep applies to a socket with no
 * answer under way; any other call goes to Node's own timer, for good. Node still writes the
 * Keep-Alive header from server.keepAliveTimeout, and a connection closes no sooner than Node would
 * have closed it (at most a sweep period later).
 */
export class DrainingServer extends Server {
  /** The latest response of each open socket still being sent (undefined when there is none). */
  readonly #latest = new Map<Socket, ServerResponse | undefined>();
  #draining = false;
  /** Every response's 'close' listener: one function, the response as `this`. */
  readonly #forgetClosed: (this: ServerResponse) => void;
  /** Sockets at the last sweeps: their traffic then, and since when it has not moved. */
  readonly #still = new Map<Socket, { moved: number; since: number }>();
  /** Each open socket's keep-alive limit as Node last set it (0: none): applied while no answer is under way. */
  readonly #keepAlive = new Map<Socket, number>();
  #sweeper: NodeJS.Timeout | undefined;

  constructor(limits: HttpLimits, handler: (request: IncomingMessage, response: ServerResponse) => void) {
    super(
      {
        maxHeaderSize: limits.maxHeaderBytes,
        // Slow headers are the slow-loris attack: same bound as the whole request.
        headersTimeout: limits.requestTimeoutMs,
        requestTimeout: limits.requestTimeoutMs,
        keepAliveTimeout: limits.keepAliveTimeoutMs,
        // Node checks the two timeouts above only this often (default 30 s, which would let a
        // 10 s timeout hold a socket for 40 s).
        connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(limits.requestTimeoutMs / 4))),
        // Node would answer an HTTP/1.1 request without Host with a bare 400 of its own, never
        // logged or counted; the app answers it as a problem instead (app.ts).
        requireHostHeader: false,
      },
      (request, response) => {
        const socket = request.socket;
        this.#latest.set(socket, response);
        response.on('close', this.#forgetClosed);
        // A request still arriving on an open connection while draining: closed once answered.
        if (this.#draining) this.#closeWhenFlushed(socket, response);
        handler(request, response);
      },
    );
    // Node answers an expectation other than 100-continue with a bare 417 of its own unless
    // asked: the app answers it as a problem instead (request-head.ts), logged and counted.
    this.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) =>
      this.emit('request', request, response),
    );
    const latest = this.#latest;
    // 'close' follows 'finish' (the response's last byte is with the kernel) or a lost connection.
    this.#forgetClosed = function forgetClosed(this: ServerResponse) {
      const socket = this.req.socket;
      if (latest.get(socket) === this) latest.set(socket, undefined);
    };
    this.on('listening', () => {
      clearInterval(this.#sweeper);
      // Four sweeps a period: a stalled socket goes between one and one and a quarter periods after its last traffic.
      const shortest = Math.min(limits.idleTimeoutMs, limits.keepAliveTimeoutMs || limits.idleTimeoutMs);
      const every = Math.max(10, Math.min(1_000, Math.floor(shortest / 4)));
      this.#sweeper = setInterval(() => this.#sweep(Date.now(), limits.idleTimeoutMs), every).unref();
    });
    this.on('close', () => clearInterval(this.#sweeper));
    const keepAlive = this.#keepAlive;
    const keepAliveMs = limits.keepAliveTimeoutMs;
    /** A socket's setTimeout: Node's keep-alive timer noted for the sweep, anything else Node's own from then on. */
    function setTimeoutBySweep(this: Socket, msecs: number, callback?: () => void): Socket {
      // Node's calls: its keep-alive timeout (with a margin of its own, up to a second) after an
      // answer, and 0 when the next request comes.
      if (callback === undefined && (msecs === 0 || (msecs >= keepAliveMs && msecs <= keepAliveMs + 1_000))) {
        keepAlive.set(this, msecs);
        (this as { timeout?: number }).timeout = msecs;
        return this;
      }
      keepAlive.set(this, 0);
      this.setTimeout = Socket.prototype.setTimeout;
      return this.setTimeout(msecs, callback);
    }
    this.on('connection', (socket: Socket) => {
      this.#latest.set(socket, undefined);
      this.#keepAlive.set(socket, 0);
      if (keepAliveMs > 0) socket.setTimeout = setTimeoutBySweep;
      socket.once('close', () => {
        this.#latest.delete(socket);
        this.#still.delete(socket);
        this.#keepAlive.delete(socket);
      });
    });
  }

  /**
   * Destroys every socket that has not moved a byte either way for its limit: the idle timeout
   * while an answer is under way, else its keep-alive timeout, if Node has set one.
   */
  #sweep(now: number, idleTimeoutMs: number): void {
    for (const [socket, response] of this.#latest) {
      const limit = response === undefined ? (this.#keepAlive.get(socket) ?? 0) : idleTimeoutMs;
      if (limit === 0) {
        this.#still.delete(socket);
        continue;
      }
      // What was read, and what was handed to the socket's handle (not what waits in its buffer).
      const moved = socket.bytesRead + (socket.bytesWritten ?? 0) - socket.writableLength;
      const seen = this.#still.get(socket);
      if (seen === undefined) this.#still.set(socket, { moved, since: now });
      else if (seen.moved !== moved) {
        // updated in place: a sweep over thousands of polling connections makes nothing new
        seen.moved = moved;
        seen.since = now;
      } else if (now - seen.since >= limit) socket.destroy();
    }
  }

  /** Whether close() has been called: no new connections, open ones finish their answers. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Called by close(): from now on every socket closes as soon as it has nothing to flush. */
  override closeIdleConnections(): void {
    this.#draining = true;
    for (const [socket, response] of this.#latest) {
      if (response === undefined || flushed(response)) socket.destroy();
      else this.#closeWhenFlushed(socket, response);
    }
  }

  /** 'close' follows 'finish', which Node emits once the last byte is with the kernel. */
  #closeWhenFlushed(socket: Socket, response: ServerResponse): void {
    response.once('close', () => {
      // A later request on the socket (pipelined) watches its own response; none came if the
      // latest was forgotten (flushed).
      const latest = this.#latest.get(socket);
      if (latest === undefined || latest === response) socket.destroySoon();
    });
  }
}

/** Ended, and every byte handed to the kernel (or the response was cut short anyway). */
function flushed(response: ServerResponse): boolean {
  return response.writableFinished || response.destroyed;
}
