import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord, KeyStore } from '../store/store.js';
import { createApiKey } from './api-keys.js';
import { ConnectionKeys } from './connection-keys.js';
import { HttpProblem } from './problems.js';

// 2025-03-07 12:00 Sydney.
const NOW = new Date('2025-03-07T01:00:00Z');

/** A key store holding records in memory, as the adapters do between their rechecks. */
function memoryKeys(records: ApiKeyRecord[]): KeyStore & { replace(record: ApiKeyRecord): void } {
  const byId = new Map(records.map((record) => [record.id, record]));
  return {
    insertKey: async (record) => void byId.set(record.id, record),
    findKey: async (id) => byId.get(id),
    rememberedKey: (id) => byId.get(id),
    listKeys: async () => [...byId.values()],
    revokeKey: async (id, at) => {
      const record = byId.get(id);
      if (record) byId.set(id, { ...record, revokedAt: at });
      return record !== undefined;
    },
    replace: (record) => byId.set(record.id, record),
  };
}

function setUp(clock: () => Date = () => NOW) {
  const first = createApiKey({ level: 'historical', now: NOW });
  const second = createApiKey({ level: 'end_of_day', now: NOW });
  const keys = memoryKeys([first.record, second.record]);
  return { first, second, keys, connectionKeys: new ConnectionKeys(keys, clock) };
}

describe('ConnectionKeys', () => {
  it('knows nothing of a connection until a request on it was authenticated', () => {
    const { first, connectionKeys } = setUp();
    expect(connectionKeys.known({}, `Bearer ${first.key}`)).toBeUndefined();
  });

  it('gives the verified key to the same header on the same connection only', () => {
    const { first, second, connectionKeys } = setUp();
    const connection = {};
    connectionKeys.remember(connection, `Bearer ${first.key}`, first.record);
    expect(connectionKeys.known(connection, `Bearer ${first.key}`)).toBe(first.record);
    // Another connection, another header, no header: authenticated the whole way.
    expect(connectionKeys.known({}, `Bearer ${first.key}`)).toBeUndefined();
    expect(connectionKeys.known(connection, `Bearer ${second.key}`)).toBeUndefined();
    expect(connectionKeys.known(connection, `Bearer ${first.key.slice(0, -1)}x`)).toBeUndefined();
    expect(connectionKeys.known(connection, undefined)).toBeUndefined();
    // A connection that switched keys keeps the last one verified.
    connectionKeys.remember(connection, `Bearer ${second.key}`, second.record);
    expect(connectionKeys.known(connection, `Bearer ${second.key}`)).toBe(second.record);
    expect(connectionKeys.known(connection, `Bearer ${first.key}`)).toBeUndefined();
  });

  it('forgets a key whose record the store no longer holds as it was (revoked, changed, not remembered)', async () => {
    const { first, keys, connectionKeys } = setUp();
    const connection = {};
    const header = `Bearer ${first.key}`;
    connectionKeys.remember(connection, header, first.record);
    await keys.revokeKey(first.record.id, '2025-03-07T00:30:00.000Z');
    expect(connectionKeys.known(connection, header)).toBeUndefined();

    // Equal contents but another record (the store read it again): verified again, not trusted.
    keys.replace({ ...first.record });
    connectionKeys.remember(connection, header, first.record);
    expect(connectionKeys.known(connection, header)).toBeUndefined();

    // A store that cannot answer at once (no rememberedKey): always the whole way.
    const { rememberedKey: _, ...withoutMemory } = keys;
    const plain = new ConnectionKeys(withoutMemory, () => NOW);
    plain.remember(connection, header, first.record);
    expect(plain.known(connection, header)).toBeUndefined();
  });

  it('refuses a key that expired since it was verified, with the 401 problem', () => {
    let now = NOW;
    const created = createApiKey({ level: 'historical', now: NOW, expiresOn: '20250307' });
    const keys = memoryKeys([created.record]);
    const connectionKeys = new ConnectionKeys(keys, () => now);
    const connection = {};
    const header = `Bearer ${created.key}`;
    connectionKeys.remember(connection, header, created.record);
    expect(connectionKeys.known(connection, header)).toBe(created.record);
    // 2025-03-08 00:00:01 Sydney: the day after its last valid day.
    now = new Date('2025-03-07T13:00:01Z');
    let refused: unknown;
    try {
      connectionKeys.known(connection, header);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(HttpProblem);
    expect((refused as HttpProblem).problem.code).toBe('unauthorized');
    expect((refused as HttpProblem).problem.detail).toBe('the API key expired after 20250307');
  });
});
