import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisCoordination } from '../../src/coordination/redis.js';
import { checkSignedDelivery, signAlertDelivery } from '../../src/incidents/alert-signature.js';
import { createIncidentLedger } from '../../src/incidents/ledger.js';
import { SqliteStateStore } from '../../src/store/sqlite/sqlite-state-store.js';
import { deleteKeysWithPrefix } from '../support/redis.js';
import { tempDir } from '../support/config.js';
import { manualClock } from '../support/clocks.js';
import { operator } from '../support/identities.js';
import { gapSignal } from '../support/incident-signals.js';

const url = process.env.TEST_REDIS_URL;

/** Two coordination clients on one Redis stand for two service instances. */
describe.skipIf(!url)('incidents across instances sharing Redis (needs TEST_REDIS_URL)', () => {
  const keyPrefix = `orch-test-incidents-${randomUUID()}:`;
  const connect = () => RedisCoordination.connect(url!, pino({ level: 'silent' }), { keyPrefix, connectTimeoutMs: 1500 });
  let a: RedisCoordination;
  let b: RedisCoordination;

  beforeAll(async () => {
    [a, b] = await Promise.all([connect(), connect()]);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await deleteKeysWithPrefix(url!, keyPrefix);
  });

  it('refuses on one instance an alert delivery the other accepted', async () => {
    const now = Date.now();
    const timestamp = String(Math.floor(now / 1000));
    const rawBody = JSON.stringify({ alerts: [{ labels: { alertname: randomUUID() } }] });
    const delivery = { rawBody, timestamp, signature: signAlertDelivery('secret', timestamp, rawBody) };
    expect(await checkSignedDelivery('secret', delivery, now, a)).toMatchObject({ ok: true });
    expect(await checkSignedDelivery('secret', delivery, now, b)).toEqual({ ok: false, reason: 'replayed' });
  });

  it('loses no write when two instances update one incident at once', async () => {
    const store = new SqliteStateStore(join(tempDir('ledger-redis-'), 'state.sqlite'));
    await store.open();
    try {
      const clock = manualClock();
      const invalidator = { invalidate: async () => undefined };
      const first = createIncidentLedger({ store, coordination: a, clock, invalidator });
      const second = createIncidentLedger({ store, coordination: b, clock, invalidator });
      const { incidentId } = await first.reportSignal(gapSignal());
      await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? first : second).acknowledge(incidentId, operator(`ops-${i}`), null)));
      expect((await first.get(incidentId))!.acknowledgements).toHaveLength(20);
    } finally {
      await store.close();
    }
  });
});
