import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator } from '../src/feed/simulator/simulator.js';
import { createApiKey } from '../src/http/api-keys.js';
import { PROCESS_TEST_TIMEOUT_MS } from './cli-process.js';
import { everyOperation } from './every-operation.js';
import {
  expectSameAnswers,
  fetchAnswer,
  inParallel,
  type ReferenceServer,
  referenceServer,
} from './replica-answers.js';
import {
  REDIS_URL,
  type ReplicaDeployment,
  startReplicaDeployment,
  whyNoDeployment,
} from './replica-deployment.js';
import { waitFor } from './wait-for.js';

/**
 * Issue 11, proof under faults, the deployment's steady state (test/replica-deployment.ts: a
 * feed through NATS JetStream and `ingest --from nats://` into PostgreSQL, two `serve --db
 * postgres://` processes): both answer every operation and code form (test/every-operation.ts)
 * in JSON with the same bytes as each other and as a SQLite store of the same feed (CSV:
 * fault-replicas-csv.test.ts, so that each file stays short); with `--redis` a limited key
 * bursting across both gets exactly its limit of answers, the rest 429 with Retry-After.
 */

const NO_DEPLOYMENT = whyNoDeployment();
if (NO_DEPLOYMENT !== undefined) console.log(`fault-replicas.test.ts: skipped, ${NO_DEPLOYMENT}`);
else if (REDIS_URL === undefined) {
  console.log(
    'fault-replicas.test.ts, the burst across replicas: skipped, GRIDQUOTE_TEST_REDIS_URL is not set',
  );
}

const DATES = ['20260302'];
/** The burst key's limit: per minute, so that a burst on a loaded machine cannot span two windows. */
const LIMIT = 10;

describe.skipIf(NO_DEPLOYMENT !== undefined)('two replicas over PostgreSQL fed through NATS', () => {
  const now = new Date();
  const open = createApiKey({ level: 'historical', now, perSecond: 0, perMinute: 0 });
  const burst = createApiKey({ level: 'historical', now, perSecond: 0, perMinute: LIMIT });
  // Counted in Redis like the burst key, never near its limit: tells when both replicas count there.
  const probe = createApiKey({ level: 'historical', now, perSecond: 0, perMinute: 10_000 });
  const events = DATES.flatMap((date) => createSimulator({ seed: 7 }).simulateDay(date));
  let deployment: ReplicaDeployment | undefined;
  let reference: ReferenceServer | undefined;

  beforeAll(async () => {
    deployment = await startReplicaDeployment(events, [open, burst, probe]);
    reference = await referenceServer(events, [open.record]);
  });

  afterAll(async () => {
    await reference?.close();
    await deployment?.close();
  });

  it(
    'answer every operation and code form in JSON with the same bytes as each other and as SQLite',
    async () => {
      if (deployment === undefined || reference === undefined) throw new Error('not set up');
      const requests = await everyOperation(deployment.store.reader, DATES);
      expect(requests.length).toBeGreaterThan(500);
      const bases = deployment.replicas.map((replica) => replica.base);
      const statuses = await expectSameAnswers(bases, reference, requests, open.key);
      // Most requests find data: the comparison is not one of empty answers or refusals.
      expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(requests.length / 2);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it.skipIf(REDIS_URL === undefined)('hold a key bursting across both to its limit (--redis)', async () => {
    const replicas = deployment?.replicas ?? [];
    const url = '/api/epi';
    // Until both count in Redis ('refuse': a limited request before that is a 503, not counted).
    for (const replica of replicas) {
      await waitFor(
        'the replica to count in Redis',
        async () => (await fetchAnswer(replica.base, url, probe.key)).status === 200,
      );
    }
    const targets = Array.from({ length: 3 * LIMIT }, (_, index) => replicas[index % 2]?.base ?? '');
    const answers = await inParallel(targets, 6, (base) => fetchAnswer(base, url, burst.key));
    const served = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(served.length).toBe(LIMIT);
    expect(refused.length).toBe(answers.length - LIMIT);
    for (const answer of refused) {
      expect(answer.retryAfter).toMatch(/^[1-9]\d*$/);
      expect(answer.type).toMatch(/^application\/problem\+json/);
    }
    // Each replica served some: the limit held across both, not within one.
    const servedBy = replicas.map(
      (replica) =>
        answers.filter((answer, index) => answer.status === 200 && targets[index] === replica.base).length,
    );
    expect(servedBy.every((count) => count > 0)).toBe(true);
  });
});
