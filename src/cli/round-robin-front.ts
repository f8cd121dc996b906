import { connect, createServer, type Socket } from 'node:net';

/**
 * The one public port of `gridquote cluster`: a TCP round robin over the API replicas. Each new
 * connection goes to the next replica (a keep-alive connection stays with its replica, as
 * behind most balancers); a replica that refuses the connection (restarting) is skipped for
 * the next. Bytes are passed through untouched, so event streams (SSE) flow as they are
 * written. A local stand-in for nginx or HAProxy (docs/operations.md), not a replacement.
 */
export interface RoundRobinFront {
  readonly url: string;
  /** Points replica `index` at a new address (a restarted replica listens on a new port). */
  setBackend(index: number, url: string): void;
  close(): Promise<void>;
}

export async function startRoundRobinFront(options: {
  readonly port: number;
  readonly host: string;
  readonly backends: readonly string[];
}): Promise<RoundRobinFront> {
  const backends = options.backends.map(addressOf);
  const sockets = new Set<Socket>();
  let next = 0;

  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };

  /** Tries the replicas in turn from the next one; the client is dropped when none answers. */
  const forward = (client: Socket, attempts: number) => {
    const target = backends[next % backends.length];
    next += 1;
    if (target === undefined || attempts >= backends.length) {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    track(upstream);
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
    upstream.on('error', () => {
      if (!connected && !client.destroyed) forward(client, attempts + 1);
      else client.destroy();
    });
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => {
      if (connected) client.destroy();
    });
  };

  const server = createServer({ pauseOnConnect: true }, (client) => {
    track(client);
    forward(client, 0);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = address !== null && typeof address === 'object' ? address.port : options.port;
  return {
    url: `http://${options.host}:${port}`,
    setBackend(index, url) {
      backends[index] = addressOf(url);
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

function addressOf(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port) };
}
