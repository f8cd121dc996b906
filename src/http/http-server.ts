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
 */
export class DrainingServer extends Server {
  /** Responses not yet flushed, per open socket. */
  readonly #open = new Map<Socket, number>();
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
      handler,
    );
    this.setTimeout(limits.idleTimeoutMs);
    this.on('connection', (socket: Socket) => {
      this.#open.set(socket, 0);
      socket.once('close', () => this.#open.delete(socket));
    });
    this.on('request', (request: IncomingMessage, response: ServerResponse) => {
      const socket = request.socket;
      this.#open.set(socket, (this.#open.get(socket) ?? 0) + 1);
      // 'close' follows 'finish', which Node emits once the last byte is with the kernel.
      response.once('close', () => {
        const left = (this.#open.get(socket) ?? 1) - 1;
        this.#open.set(socket, left);
        if (this.#draining && left === 0) socket.destroySoon();
      });
    });
  }

  /** Whether close() has been called: no new connections, open ones finish their answers. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Called by close(): from now on every socket closes as soon as it has nothing to flush. */
  override closeIdleConnections(): void {
    this.#draining = true;
    for (const [socket, open] of this.#open) if (open === 0) socket.destroy();
  }
}
