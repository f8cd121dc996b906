import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { httpOptions, profileTradelog } from './http-bench.js';

/**
 * `node .bench-build/bench/http-profile.js [--http-duration S]`: the cached trade-log case of the HTTP
 * benchmark with `gridquote serve` under `node --cpu-prof`, then where its CPU time went: self and inclusive time
 * by function and self time by package, per request. Prints; writes nothing to the docs (the
 * profiler slows the server, so its throughput is not a measurement).
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface ProfileNode {
  readonly id: number;
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
  };
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface ProfileSummary {
  /** Microseconds sampled in all. */
  readonly totalUs: number;
  readonly self: ReadonlyMap<string, number>;
  readonly inclusive: ReadonlyMap<string, number>;
  readonly byArea: ReadonlyMap<string, number>;
}

/** Self time per sample node, then rolled up by function and by area (package or source file). */
export function summariseProfile(profile: CpuProfile): ProfileSummary {
  const nodeSelf = new Map<number, number>();
  let totalUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    // The delta after a sample is the time spent in it.
    const us = profile.timeDeltas[i + 1] ?? 0;
    if (id === undefined) continue;
    nodeSelf.set(id, (nodeSelf.get(id) ?? 0) + us);
    totalUs += us;
  }
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  const byArea = new Map<string, number>();
  for (const node of profile.nodes) {
    const us = nodeSelf.get(node.id) ?? 0;
    self.set(keyOf(node), (self.get(keyOf(node)) ?? 0) + us);
    byArea.set(areaOf(node), (byArea.get(areaOf(node)) ?? 0) + us);
  }
  // Inclusive: a function's subtree time, counted once however deep it recurses.
  const inclusive = new Map<string, number>();
  const subtree = new Map<number, number>();
  const total = (id: number): number => {
    const known = subtree.get(id);
    if (known !== undefined) return known;
    const node = nodes.get(id);
    let sum = nodeSelf.get(id) ?? 0;
    for (const child of node?.children ?? []) sum += total(child);
    subtree.set(id, sum);
    return sum;
  };
  const active = new Map<string, number>();
  const visit = (id: number) => {
    const node = nodes.get(id);
    if (node === undefined) return;
    const key = keyOf(node);
    const depth = active.get(key) ?? 0;
    if (depth === 0) inclusive.set(key, (inclusive.get(key) ?? 0) + total(id));
    active.set(key, depth + 1);
    for (const child of node.children ?? []) visit(child);
    active.set(key, depth);
  };
  const root = profile.nodes[0];
  if (root) visit(root.id);
  return { totalUs, self, inclusive, byArea };
}

function keyOf(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const name = functionName === '' ? '(anonymous)' : functionName;
  return url === '' ? name : `${name} ${shortUrl(url)}:${lineNumber + 1}`;
}

function areaOf(node: ProfileNode): string {
  const { functionName, url } = node.callFrame;
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules?.[1] !== undefined) return modules[1];
  return `gridquote ${shortUrl(url)}`;
}

function shortUrl(url: string): string {
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const modules = path.lastIndexOf('node_modules/');
  if (modules >= 0) return path.slice(modules + 'node_modules/'.length);
  return path.startsWith(ROOT) ? relative(ROOT, path) : path;
}

/**
 * Pipeline stages of a gridquote request as function patterns of the profile (inclusive time
 * of the outermost match), so the profile reads as "where one request's time goes".
 */
const STAGES: readonly { readonly name: string; readonly pattern: RegExp; readonly self?: boolean }[] = [
  { name: 'authenticate: all', pattern: /^authenticate dist\/http\/auth\.js/ },
  { name: '  of which the key record (findKey, memory)', pattern: /^findKey dist\/store\/sqlite\// },
  { name: '  of which SHA-256 of the secret (secretMatches)', pattern: /^secretMatches dist\/http\// },
  { name: 'rate limiting (admit, rate-limiter-flexible)', pattern: /^admit dist\/http\/rate-limit\.js/ },
  { name: 'parameters (readParams)', pattern: /^readParams dist\/http\/params\.js/ },
  {
    name: 'answer: cache lookup, ETag, headers, send (sendAnswer)',
    pattern: /^sendAnswer dist\/http\/answer\.js/,
  },
  { name: '  of which Fastify reply.send down to the socket', pattern: /^Reply\.send fastify\// },
  { name: '  of which the kernel socket write (writev)', pattern: /^writev$/, self: true },
  { name: 'request log line (pino write, sonic-boom)', pattern: /^write pino\/lib\/proto\.js/ },
  { name: "per-request child logger (Fastify's request.log)", pattern: /^child pino\/lib\/proto\.js/ },
  { name: 'metrics (prom-client, observe)', pattern: /^record dist\/http\/metrics\.js/ },
  { name: 'request id (randomUUID)', pattern: /^genReqId dist\/http\/app\.js/ },
  { name: 'garbage collection', pattern: /^\(garbage collector\)$/, self: true },
  { name: 'idle (waiting for the network)', pattern: /^\(idle\)$/, self: true },
];

function stageTotals(summary: ProfileSummary): [string, number][] {
  return STAGES.map((stage) => {
    const source = stage.self ? summary.self : summary.inclusive;
    let us = 0;
    for (const [key, value] of source) if (stage.pattern.test(key)) us += value;
    return [stage.name, us];
  });
}

export function formatProfile(summary: ProfileSummary, requests: number, top = 30): string {
  const perRequest = (us: number) => `${(us / requests).toFixed(1).padStart(7)} µs/req`;
  const share = (us: number) => `${((100 * us) / summary.totalUs).toFixed(1).padStart(5)}%`;
  const table = (title: string, entries: ReadonlyMap<string, number>, count: number) => [
    title,
    ...[...entries]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, us]) => `  ${share(us)} ${perRequest(us)}  ${name}`),
  ];
  return [
    `${requests} requests, ${(summary.totalUs / 1000).toFixed(0)} ms sampled: ${perRequest(summary.totalUs)} in all`,
    'stages of a request (inclusive; a stage can contain another):',
    ...stageTotals(summary).map(([name, us]) => `  ${share(us)} ${perRequest(us)}  ${name}`),
    ...table('self time by area:', summary.byArea, 25),
    ...table('self time by function:', summary.self, top),
    ...table('inclusive time by function:', summary.inclusive, top),
  ].join('\n');
}

async function main(): Promise<void> {
  const directory = join(ROOT, '.bench-tmp', 'http');
  const profiles = join(directory, 'profiles');
  rmSync(profiles, { recursive: true, force: true });
  mkdirSync(profiles, { recursive: true });
  const options = httpOptions(process.argv, directory, '20250221', 1);
  const result = await profileTradelog(options, ['--cpu-prof', '--cpu-prof-dir', profiles]);
  const file = readdirSync(profiles).find((name) => name.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`no profile written to ${profiles}`);
  const profile = JSON.parse(readFileSync(join(profiles, file), 'utf8')) as CpuProfile;
  const requests = result.requests;
  process.stdout.write(
    `${Math.round(result.requestsPerSecond)} req/s under the profiler (not a measurement); profile ${join(profiles, file)}\n`,
  );
  process.stdout.write(`${formatProfile(summariseProfile(profile), requests)}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
