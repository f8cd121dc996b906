import { type IncomingMessage, Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
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
 * The bookkeeping costs a request one Map write: the socket's latest response is noted, and
 * only at close() is it asked whether it is done. A socket's responses go out in order, so its
 * latest being flushed means all of them are.
 */
export class DrainingServer extends Server {
  /** The latest response of each open socket (undefined before its first request). */
  readonly #latest = new Map<Socket, ServerResponse | undefined>();
  #draining = false;

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
        // A request still arriving on an open connection while draining: closed once answered.
        if (this.#draining) this.#closeWhenFlushed(socket, response);
        handler(request, response);
      },
    );
    this.setTimeout(limits.idleTimeoutMs);
    this.on('connection', (socket: Socket) => {
      this.#latest.set(socket, undefined);
      socket.once('close', () => this.#latest.delete(socket));
    });
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
      // A later request on the socket (pipelined) watches its own response.
      if (this.#latest.get(socket) === response) socket.destroySoon();
    });
  }
}

/** Ended, and every byte handed to the kernel (or the response was cut short anyway). */
function flushed(response: ServerResponse): boolean {
  return response.writableFinished || response.destroyed;
}
