import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type BaselineConfig, type Child, type CommitMessage, startChild } from './http-child.js';
import { closeFetchConnections, fetchOnce } from './http-load.js';

const LOADER = new URL('../../test/typescript-loader.mjs', import.meta.url).href;

const BODY = Buffer.from('{"intraday":[]}');
const CONFIG: BaselineConfig = {
  status: 200,
  headers: [
    'content-type',
    'application/json',
    'etag',
    '"abc-v7"',
    'cache-control',
    'private, max-age=1',
    'content-length',
    String(BODY.length),
  ],
  bodyBase64: BODY.toString('base64'),
  keepAliveTimeoutMs: 5_000,
};

let child: Child | undefined;
let directory: string | undefined;

afterEach(async () => {
  closeFetchConnections();
  await child?.stop();
  child = undefined;
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

/** Starts the baseline child (the TypeScript source) on `config`; its commit messages land in `commits`. */
async function start(config: BaselineConfig, commits: CommitMessage[]): Promise<string> {
  directory = mkdtempSync(join(tmpdir(), 'gq-baseline-'));
  const path = join(directory, 'config.json');
  writeFileSync(path, JSON.stringify(config));
  child = await startChild('./http-baseline-child.ts', [path], {
    stdout: 'ignore',
    execArgv: ['--import', LOADER],
    onMessage: (message) => {
      if ((message as CommitMessage).type === 'commit') commits.push(message as CommitMessage);
    },
  });
  return child.ready.url;
}

async function get(url: string, headers: Record<string, string> = {}) {
  const { status, rawHeaders, body } = await fetchOnce(url, headers);
  const header = (name: string) => {
    const at = rawHeaders.findIndex((raw, index) => index % 2 === 0 && raw.toLowerCase() === name);
    return at < 0 ? undefined : rawHeaders[at + 1];
  };
  return { status, etag: header('etag'), length: header('content-length'), body: body.toString() };
}

describe('the bare baseline server of the benchmarks', () => {
  it('answers every request with the fixed bytes and headers', async () => {
    const url = await start(CONFIG, []);
    const answer = await get(`${url}/api/intraday?futures=au_electricity`, { 'if-none-match': '"abc-v7"' });
    // Without versionEveryMs it is the plain baseline: no 304, the ETag as fetched.
    expect(answer).toEqual({
      status: 200,
      etag: '"abc-v7"',
      length: String(BODY.length),
      body: BODY.toString(),
    });
  });

  it('moves its ETag version every versionEveryMs, reports each move as a commit and answers 304 to the current ETag', async () => {
    const commits: CommitMessage[] = [];
    const url = await start({ ...CONFIG, versionEveryMs: 30 }, commits);
    const first = await get(url);
    expect(first.status).toBe(200);
    expect(first.body).toBe(BODY.toString());
    const version = Number(/^"baseline-v(\d+)"$/.exec(first.etag ?? '')?.[1]);
    expect(version).toBeGreaterThanOrEqual(1);

    // A 304 for the current ETag, unless the version moved in between: then the new one in full.
    const again = await get(url, { 'if-none-match': first.etag ?? '' });
    if (again.status === 304) {
      expect(again).toMatchObject({ etag: first.etag, length: undefined, body: '' });
    } else {
      expect(again.status).toBe(200);
      expect(again.etag).not.toBe(first.etag);
    }

    await new Promise((resolve) => setTimeout(resolve, 100));
    const later = await get(url, { 'if-none-match': first.etag ?? '' });
    expect(later.status).toBe(200);
    expect(Number(/^"baseline-v(\d+)"$/.exec(later.etag ?? '')?.[1])).toBeGreaterThan(version);

    // Each move was reported, in order, with its instant on the monotonic clock.
    expect(commits.length).toBeGreaterThanOrEqual(3);
    commits.forEach((commit, index) => {
      expect(commit.version).toBe(index + 1);
      expect(commit.noticedNs).toBe(commit.atNs);
      if (index > 0) expect(BigInt(commit.atNs)).toBeGreaterThan(BigInt(commits[index - 1]?.atNs ?? '0'));
    });
  });
});
