import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BaselineConfig, sendReady, serveParent } from './http-child.js';

/**
 * The HTTP benchmark's baseline, in its own process: a bare node:http server that answers every
 * request with one fixed response, the bytes and headers gridquote sent for the same request
 * (argv[2], a file holding a BaselineConfig as JSON: a full-day answer is too long for an argument). What gridquote costs beyond it is the whole price of
 * routing, authentication, rate limiting, negotiation, the answer cache and the request log.
 */

const config = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as BaselineConfig;
const body = Buffer.from(config.bodyBase64, 'base64');
const headers = [...config.headers];

const server = createServer((_request, response) => {
  // Name/value pairs as a flat list: Node writes them as given, in order (plus Date,
  // Connection and Keep-Alive, which it adds to gridquote's answers too).
  response.writeHead(config.status, headers);
  response.end(body);
});
// The same Keep-Alive: timeout=N header as gridquote's server, so the bytes match.
server.keepAliveTimeout = config.keepAliveTimeoutMs;
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const { port } = server.address() as AddressInfo;
serveParent(async () => {
  server.closeAllConnections();
  server.close();
});
sendReady({ type: 'ready', url: `http://127.0.0.1:${port}` });
