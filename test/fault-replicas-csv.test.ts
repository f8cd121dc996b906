import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator } from '../src/feed/simulator/simulator.js';
import { createApiKey } from '../src/http/api-keys.js';
import { PROCESS_TEST_TIMEOUT_MS } from './cli-process.js';
import { everyOperation } from './every-operation.js';
import { expectSameAnswers, type ReferenceServer, referenceServer } from './replica-answers.js';
import { type ReplicaDeployment, startReplicaDeployment, whyNoDeployment } from './replica-deployment.js';

/**
 * fault-replicas.test.ts in CSV: both replicas of the deployment answer every operation and
 * code form with the same bytes as each other and as a SQLite store of the same feed. A file
 * of its own so that each stays well within its time bound on a loaded two-core machine.
 */

const NO_DEPLOYMENT = whyNoDeployment();
if (NO_DEPLOYMENT !== undefined) console.log(`fault-replicas-csv.test.ts: skipped, ${NO_DEPLOYMENT}`);

const DATES = ['20260303'];

describe.skipIf(NO_DEPLOYMENT !== undefined)('two replicas over PostgreSQL fed through NATS, in CSV', () => {
  const open = createApiKey({ level: 'historical', now: new Date(), perSecond: 0, perMinute: 0 });
  const events = DATES.flatMap((date) => createSimulator({ seed: 8 }).simulateDay(date));
  let deployment: ReplicaDeployment | undefined;
  let reference: ReferenceServer | undefined;

  beforeAll(async () => {
    deployment = await startReplicaDeployment(events, [open]);
    reference = await referenceServer(events, [open.record]);
  });

  afterAll(async () => {
    await reference?.close();
    await deployment?.close();
  });

  it(
    'answer every operation and code form in CSV with the same bytes as each other and as SQLite',
    async () => {
      if (deployment === undefined || reference === undefined) throw new Error('not set up');
      const requests = (await everyOperation(deployment.store.reader, DATES)).map(
        (url) => `${url}&format=csv`,
      );
      expect(requests.length).toBeGreaterThan(500);
      const bases = deployment.replicas.map((replica) => replica.base);
      const statuses = await expectSameAnswers(bases, reference, requests, open.key);
      expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(requests.length / 2);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
