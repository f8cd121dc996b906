import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy a test can cut and restore: stands in for a database server that goes away and
 * comes back, without touching the real one (other tests and processes use it). While cut, the
 * port refuses connections and every open connection is reset. While frozen, it stands in for a
 * server that hangs (a stopped host, a partition): connections are accepted and kept, but no
 * byte passes either way until it thaws.
 */
export interface TcpProxy {
  readonly port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  /** Each client connected through, with its upstream. */
  const upstreams = new Map<Socket, Socket>();
  /** Clients accepted while frozen, connected through at the thaw. */
  const held = new Set<Socket>();
  let frozen = false;
  let server: Server | undefined;
  let port = 0;

  /** Either side's end or error ends both. */
  const track = (socket: Socket, other: () => Socket | undefined) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {
      socket.destroy();
      other()?.destroy();
    });
  };
  const through = (client: Socket) => {
    const upstream = connect(target.port, target.host);
    upstreams.set(client, upstream);
    upstream.on('close', () => upstreams.delete(client));
    track(upstream, () => client);
    client.pipe(upstream);
    upstream.pipe(client);
  };

  const listen = async () => {
    const next = createServer((client) => {
      track(client, () => upstreams.get(client));
      if (frozen) held.add(client);
      else through(client);
    });
    await new Promise<void>((resolve, reject) => {
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => resolve());
    });
    const address = next.address();
    if (address !== null && typeof address === 'object') port = address.port;
    server = next;
  };

  const stop = async () => {
    const current = server;
    server = undefined;
    frozen = false;
    held.clear();
    upstreams.clear();
    for (const socket of sockets) socket.resetAndDestroy();
    sockets.clear();
    if (current) await new Promise<void>((resolve) => current.close(() => resolve()));
  };

  await listen();
  return {
    get port() {
      return port;
    },
    cut: stop,
    restore: listen,
    freeze() {
      frozen = true;
      for (const [client, upstream] of upstreams) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    thaw() {
      frozen = false;
      for (const [client, upstream] of upstreams) {
        client.pipe(upstream);
        upstream.pipe(client);
      }
      for (const client of held) if (!client.destroyed) through(client);
      held.clear();
    },
    close: stop,
  };
}

/**
 * A proxy in front of the server a URL names (at `defaultPort` when the URL has no port), and
 * that URL pointed at the proxy instead: what a client under test connects to.
 */
export async function proxyInFrontOf(
  url: string,
  defaultPort: number,
): Promise<{ proxy: TcpProxy; url: string }> {
  const target = new URL(url);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || defaultPort) });
  const viaProxy = new URL(target);
  viaProxy.hostname = '127.0.0.1';
  viaProxy.port = String(proxy.port);
  return { proxy, url: viaProxy.href };
}
