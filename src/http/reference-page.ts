import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { digestOf, noneMatchHits } from './etag.js';
import type { ExampleValues } from './examples.js';
import { buildOpenApiDocument, type DocumentedOperation, type ExtraPaths, OPENAPI_PATH } from './openapi.js';

/**
 * The OpenAPI document and the interactive reference page (Swagger UI), both public: they
 * describe the API and hold no data. The page and its assets are served by this server from
 * the swagger-ui-dist package; its Content-Security-Policy lets it load nothing from any other
 * origin, so it works offline and sends nothing anywhere.
 */

export const DOCS_PATH = '/docs';
const ASSETS = `${DOCS_PATH}/assets`;
const INIT = `${DOCS_PATH}/init.js`;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.png': 'image/png',
};

/** The files of swagger-ui-dist the page uses; nothing else of node_modules is reachable. */
export const ASSET_FILES = [
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'favicon-32x32.png',
  'favicon-16x16.png',
];

export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets style attributes from script.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gridquote API reference</title>
<link rel="stylesheet" href="${ASSETS}/swagger-ui.css">
<link rel="icon" type="image/png" sizes="32x32" href="${ASSETS}/favicon-32x32.png">
<link rel="icon" type="image/png" sizes="16x16" href="${ASSETS}/favicon-16x16.png">
</head>
<body>
<noscript>This page needs JavaScript; the document itself is at <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</noscript>
<div id="reference"></div>
<script src="${ASSETS}/swagger-ui-bundle.js"></script>
<script src="${INIT}"></script>
</body>
</html>
`;

// A file rather than an inline script, so the policy needs no 'unsafe-inline' for scripts.
const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '${OPENAPI_PATH}',
    dom_id: '#reference',
    // null: Swagger UI would otherwise send the document to an online validator.
    validatorUrl: null,
    deepLinking: true,
    tryItOutEnabled: true,
    displayRequestDuration: true,
    defaultModelsExpandDepth: 0,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

interface Asset {
  readonly body: Buffer;
  readonly gzip: Buffer;
}

// Read on first request, once per process: the bundle is 1.5 MB and most apps never serve it.
const assets = new Map<string, Asset>();

function assetDirectory(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

function asset(file: string): Asset {
  let found = assets.get(file);
  if (found === undefined) {
    const body = readFileSync(join(assetDirectory(), file));
    found = { body, gzip: file.endsWith('.png') ? body : gzipSync(body) };
    assets.set(file, found);
  }
  return found;
}

interface DocumentAsset extends Asset {
  /** Strong: the coded and the plain document are told apart by Content-Encoding and Vary. */
  readonly etag: string;
}

function documentAsset(document: object): DocumentAsset {
  const body = Buffer.from(JSON.stringify(document));
  return { body, gzip: gzipSync(body), etag: `"${digestOf(body)}"` };
}

function acceptsGzip(request: FastifyRequest): boolean {
  const header = request.headers['accept-encoding'];
  return typeof header === 'string' && /\bgzip\b(?!;\s*q=0(\.0*)?\s*(,|$))/i.test(header);
}

function sendStatic(reply: FastifyReply, type: string, body: string | Buffer): FastifyReply {
  return reply.header('content-type', type).header('x-content-type-options', 'nosniff').send(body);
}

/**
 * Registers the document, the page and its assets; returns the two paths worth naming in a 404.
 * The document's examples come from the store served (examples.ts), so the page's "Try it out"
 * answers on whatever days and contracts it holds; it is rebuilt when the store's latest day
 * moves. An empty or failing store gets the examples of docs/api.md: the document holds no data.
 */
export function registerDocumentation(
  app: FastifyInstance,
  operations: readonly DocumentedOperation[],
  examples: () => Promise<ExampleValues | undefined>,
  extra?: ExtraPaths,
): string[] {
  let built: { readonly values: ExampleValues | undefined; readonly document: DocumentAsset } | undefined;
  const currentDocument = async (): Promise<DocumentAsset> => {
    const values = await examples();
    if (built === undefined || built.values !== values) {
      built = { values, document: documentAsset(buildOpenApiDocument(operations, values, extra)) };
    }
    return built.document;
  };
  app.get(OPENAPI_PATH, async (request, reply) => {
    const document = await currentDocument();
    // 150 KB that changes only when the store's latest day moves (its examples): revalidated.
    reply
      .header('cache-control', 'no-cache')
      .header('vary', 'Accept, Accept-Encoding')
      .header('etag', document.etag);
    if (noneMatchHits(request.headers['if-none-match'], document.etag)) return reply.code(304).send();
    const type = 'application/json; charset=utf-8';
    if (acceptsGzip(request))
      return sendStatic(reply.header('content-encoding', 'gzip'), type, document.gzip);
    return sendStatic(reply, type, document.body);
  });
  app.get(DOCS_PATH, (_request, reply) =>
    sendStatic(
      reply.header('content-security-policy', PAGE_CSP).header('cache-control', 'no-cache'),
      'text/html; charset=utf-8',
      PAGE,
    ),
  );
  app.get(INIT, (_request, reply) =>
    sendStatic(reply.header('cache-control', 'no-cache'), CONTENT_TYPES['.js'] ?? '', INIT_SCRIPT),
  );
  for (const file of ASSET_FILES) {
    const path = `${ASSETS}/${file}`;
    const type = CONTENT_TYPES[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream';
    // Images are compressed already.
    const compressible = type.startsWith('text/');
    app.get(path, (request, reply) => {
      const { body, gzip } = asset(file);
      reply.header('cache-control', 'public, max-age=86400').header('vary', 'Accept, Accept-Encoding');
      if (compressible && acceptsGzip(request)) {
        return sendStatic(reply.header('content-encoding', 'gzip'), type, gzip);
      }
      return sendStatic(reply, type, body);
    });
  }
  return [OPENAPI_PATH, DOCS_PATH];
}
