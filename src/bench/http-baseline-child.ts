import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BaselineConfig, type CommitMessage, sendReady, serveParent } from './http-child.js';

/**
 * The HTTP benchmark's baseline, in its own process: a bare node:http server that answers every
 * request with one fixed response, the bytes and headers gridquote sent for the same request
 * (argv[2], a file holding a BaselineConfig as JSON: a full-day answer is too long for an argument). What gridquote costs beyond it is the whole price of
 * routing, authentication, rate limiting, negotiation, the answer cache and the request log.
 *
 * With versionEveryMs it is also the floor of the live benchmark's commit-to-answer time: its
 * "commits" cost nothing (a counter moves and the ETag with it), so what a probe waits for one
 * is the machine's and the protocol's own share: the answer in flight, the next request, the
 * queue of the pollers' requests before it.
 */

const config = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as BaselineConfig;
const body = Buffer.from(config.bodyBase64, 'base64');
const headers = [...config.headers];
const live = config.versionEveryMs === undefined ? undefined : startVersions(config.versionEveryMs);

const server = createServer((request, response) => {
  // Name/value pairs as a flat list: Node writes them as given, in order (plus Date,
  // Connection and Keep-Alive, which it adds to gridquote's answers too).
  if (live !== undefined && request.headers['if-none-match'] === live.etag()) {
    response.writeHead(304, live.notModifiedHeaders);
    response.end();
    return;
  }
  response.writeHead(config.status, headers);
  response.end(body);
});
// The same Keep-Alive: timeout=N header as gridquote's server, so the bytes match.
server.keepAliveTimeout = config.keepAliveTimeoutMs;
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const { port } = server.address() as AddressInfo;
serveParent(async () => {
  live?.stop();
  server.closeAllConnections();
  server.close();
});
sendReady({ type: 'ready', url: `http://127.0.0.1:${port}` });

/**
 * A version that moves every `everyMs`, written into the ETag of `headers` in gridquote's form
 * for the current day ("...-v<version>"), each move sent to the parent as a commit.
 */
function startVersions(everyMs: number) {
  const at = headers.findIndex((name, index) => index % 2 === 0 && name.toLowerCase() === 'etag');
  if (at < 0) throw new Error('the live baseline needs an answer with an ETag');
  // A 304 carries the validators, not the body's own headers.
  const bodyHeaders = new Set(['content-length', 'content-type', 'content-encoding', 'content-disposition']);
  const notModifiedHeaders: string[] = [];
  for (let index = 0; index + 1 < headers.length; index += 2) {
    const name = headers[index] ?? '';
    if (!bodyHeaders.has(name.toLowerCase())) notModifiedHeaders.push(name, headers[index + 1] ?? '');
  }
  const notModifiedAt = notModifiedHeaders.findIndex((name) => name.toLowerCase() === 'etag');
  let version = 0;
  const move = () => {
    version += 1;
    const etag = `"baseline-v${version}"`;
    headers[at + 1] = etag;
    notModifiedHeaders[notModifiedAt + 1] = etag;
    const atNs = String(process.hrtime.bigint());
    process.send?.({
      type: 'commit',
      version,
      atNs,
      noticedNs: atNs,
      lastDate: '',
      lastSeq: version,
    } satisfies CommitMessage);
  };
  move();
  const timer = setInterval(move, everyMs);
  return {
    notModifiedHeaders,
    etag: () => headers[at + 1],
    stop: () => clearInterval(timer),
  };
}
