/**
 * Where the rate-limit counters live (docs/operations.md, "Rate limits shared in Redis"): a
 * Redis URL (`redis://`, `rediss://` for TLS), or Redis Sentinel's
 * `redis+sentinel://[[user]:password@]host:port[,host:port...]/master` (`rediss+sentinel://`:
 * TLS to the sentinels and to the servers they name), in which case the sentinels are asked
 * where the master is, at start and again after every failover. The password (and user) are
 * the master's and its replicas'; the sentinels' own password, if they ask for one, is a
 * setting apart (GRIDQUOTE_REDIS_SENTINEL_PASSWORD, config.ts).
 */
export type RedisLocation =
  | { readonly kind: 'url'; readonly url: string; readonly tls: boolean }
  | {
      readonly kind: 'sentinel';
      readonly sentinels: readonly { readonly host: string; readonly port: number }[];
      /** The master's name in the sentinels' configuration (`sentinel monitor <name> ...`). */
      readonly name: string;
      readonly username?: string;
      readonly password?: string;
      /** rediss+sentinel://: the sentinels, the master and its replicas are all reached over TLS. */
      readonly tls: boolean;
    };

const SENTINEL = /^redis(s?)\+sentinel:\/\/(?:([^@/]*)@)?([^/@]+)\/([A-Za-z0-9_.-]{1,64})\/?$/i;
const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$/;

/** The location, or why the text is not one (without repeating it: it may hold a password). */
export function parseRedisLocation(text: string): RedisLocation | { readonly problem: string } {
  if (/^rediss?:\/\/\S+$/.test(text)) return { kind: 'url', url: text, tls: text.startsWith('rediss:') };
  const sentinel = SENTINEL.exec(text);
  if (sentinel === null) {
    return {
      problem:
        'must be a redis:// or rediss:// URL, or redis+sentinel://host:port[,host:port...]/master (rediss+sentinel:// for TLS; the value is not shown: it may hold a password)',
    };
  }
  const [, secure, userinfo, hosts = '', name = ''] = sentinel;
  const sentinels: { host: string; port: number }[] = [];
  for (const address of hosts.split(',')) {
    const hostPort = HOST_PORT.exec(address.trim());
    const port = Number(hostPort?.[2]);
    if (hostPort === null || port < 1 || port > 65_535) {
      return {
        problem: 'must name each sentinel as host:port: redis+sentinel://host:port[,host:port...]/master',
      };
    }
    sentinels.push({ host: (hostPort[1] ?? '').replace(/^\[|\]$/g, ''), port });
  }
  const credentials: { username?: string; password?: string } = {};
  if (userinfo !== undefined) {
    const colon = userinfo.indexOf(':');
    const user = decodeURIComponent(colon === -1 ? userinfo : userinfo.slice(0, colon));
    if (user !== '') credentials.username = user;
    if (colon !== -1) credentials.password = decodeURIComponent(userinfo.slice(colon + 1));
  }
  return { kind: 'sentinel', sentinels, name, ...credentials, tls: secure !== '' };
}
