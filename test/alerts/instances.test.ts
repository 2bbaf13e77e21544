import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { PostgresStateStore } from '../../src/store/postgres/postgres-state-store.js';
import { manualClock } from '../support/clocks.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';
import { alertInstance, startReceiver } from './harness.js';

const SKIP_REASON = 'TEST_DATABASE_URL is not set: instances sharing a store need PostgreSQL';
const SECRET = 'alert-sink-secret-for-tests';
const schemas: string[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  if (TEST_DATABASE_URL) await dropTestSchemas(TEST_DATABASE_URL, schemas);
});

/** One instance's own connection pool onto the shared schema, as a separate process would hold. */
async function instanceStore(schema: string): Promise<PostgresStateStore> {
  const store = new PostgresStateStore(postgresUrlWithSchema(TEST_DATABASE_URL!, schema), { poolSize: 4 });
  await store.open();
  cleanups.push(() => store.close());
  return store;
}

describe.skipIf(!TEST_DATABASE_URL)(`alerts on instances sharing one PostgreSQL store (${TEST_DATABASE_URL ? 'TEST_DATABASE_URL' : SKIP_REASON})`, () => {
  it('fires once per dedupe window and delivers each notice once, whichever instances evaluate and deliver at the same time', async () => {
    const schema = uniqueSchema('alerts');
    schemas.push(schema);
    const hook = await startReceiver(SECRET);
    cleanups.push(hook.close);
    const clock = manualClock();
    const file = {
      sinks: { out: { kind: 'webhook' as const, url: `${hook.url}/hook`, secretEnv: 'ALERT_SECRET', allowPrivate: true, timeoutMs: 300, retry: { baseDelayMs: 1000 } } },
      rules: [{ id: 'incident-opened', match: { incident: 'opened' as const }, dedupeWindowSeconds: 600, sinks: ['out'] }],
    };
    const instances = [];
    for (const owner of ['instance-a', 'instance-b', 'instance-c']) instances.push(alertInstance(await instanceStore(schema), clock, file, { ALERT_SECRET: SECRET }, owner));
    const [a] = instances;

    await a!.ledger.reportSignal({ fingerprint: 'queue:stalled', classification: 'service-runtime', severity: 'warning', title: 'queue stalled', summary: 'nothing claimed for 10 min' });
    const passes = await Promise.all(instances.map((i) => i.alerts.evaluate()));
    expect(passes.reduce((sum, p) => sum + p.fired, 0)).toBe(1);

    // The receiver is down for the first attempt: whoever claimed it, the retry is not lost and not doubled.
    hook.setMode('fail');
    await Promise.all(instances.map((i) => i.alerts.deliver()));
    expect(hook.received).toHaveLength(1);
    hook.setMode('ok');
    clock.advance(1000);
    await Promise.all(instances.map((i) => i.alerts.deliver()));
    await Promise.all(instances.map((i) => i.alerts.deliver()));
    expect(hook.accepted()).toHaveLength(1);
    expect(hook.accepted()[0]!.signatureValid).toBe(true);

    // Still within the window: nothing new. One window later, still holding: one repeat.
    clock.advance(300_000);
    expect((await Promise.all(instances.map((i) => i.alerts.evaluate()))).reduce((sum, p) => sum + p.fired, 0)).toBe(0);
    clock.advance(300_000);
    expect((await Promise.all(instances.map((i) => i.alerts.evaluate()))).reduce((sum, p) => sum + p.fired, 0)).toBe(1);
    await Promise.all(instances.map((i) => i.alerts.deliver()));
    expect(hook.accepted()).toHaveLength(2);

    await a!.ledger.resolveSignal('queue:stalled');
    expect((await Promise.all(instances.map((i) => i.alerts.evaluate()))).reduce((sum, p) => sum + p.resolved, 0)).toBe(1);
    await Promise.all(instances.map((i) => i.alerts.deliver()));
    const statuses = hook.accepted().map((r) => (JSON.parse(r.body) as { status: string }).status);
    expect(statuses).toEqual(['firing', 'firing', 'resolved']);

    // Every instance shows the same history: three notices, each delivered.
    for (const instance of instances) {
      const { alerts } = await instance.alerts.list(10);
      expect(alerts.map((n) => [n.kind, n.deliveries[0]!.status])).toEqual([
        ['resolved', 'delivered'],
        ['firing', 'delivered'],
        ['firing', 'delivered'],
      ]);
    }
  });
});
