import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/**
 * The market dashboard (packages/dashboard) at `/`: a page built by Vite at install time
 * (`npm ci` runs `npm run build`), served by this process from that build. The page reads the
 * public API with the key its user enters; it holds no data and needs no key to load. Its
 * Content-Security-Policy lets it load and connect to nothing but this origin.
 */

export const DASHBOARD_PATH = '/';
const ASSETS_PREFIX = '/assets/';

export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // uPlot sizes its elements through the CSSOM (element.style), which style-src does not govern.
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The dashboard's build (its `dist` folder), or undefined when it was not built (a checkout
 * before `npm run build`): the server then answers `/` with a 404 that says so.
 */
export function dashboardBuild(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve('@gridquote/dashboard/package.json');
    const dist = join(dirname(manifest), 'dist');
    return existsSync(join(dist, 'index.html')) ? dist : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Registers `/` (the page: revalidated on every load, so a new build shows at once) and
 * `/assets/*` (Vite names each file by its content hash, so they are immutable for a year).
 * Returns the paths it answers, for the app's list of known paths.
 */
export function registerDashboard(app: FastifyInstance, dist: string): string[] {
  const page = readFileSync(join(dist, 'index.html'));
  app.get(DASHBOARD_PATH, async (_request, reply) =>
    reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('content-security-policy', DASHBOARD_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .send(page),
  );
  app.register(fastifyStatic, {
    root: join(dist, 'assets'),
    prefix: ASSETS_PREFIX,
    // Routes for the files present at start only: nothing else on disk is reachable.
    wildcard: false,
    index: false,
    decorateReply: false,
    maxAge: '365d',
    immutable: true,
    setHeaders: (response) => response.setHeader('x-content-type-options', 'nosniff'),
  });
  return [DASHBOARD_PATH];
}
