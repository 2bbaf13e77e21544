import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RunLogLine } from '../../src/domain/run-log-line.js';
import { announcementPayload, channelNames, parseAnnouncement, PostgresEventChannel } from '../../src/events/postgres-event-channel.js';
import type { RunEventsWritten } from '../../src/store/types.js';
import type { RunEventHub } from '../../src/events/run-event-hub.js';
import type { EventChannelObserver } from '../../src/events/event-channel.js';
import { PostgresStateStore } from '../../src/store/postgres/postgres-state-store.js';
import { markRunning, withEvent } from '../../src/runtime/run-transitions.js';
import { MemorySink, silentLogger, testHub } from '../support/event-streams.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';
import { makeRun } from '../support/runs.js';

const SKIP_REASON = 'TEST_DATABASE_URL unset: PostgreSQL event channel skipped';
const AT = new Date('2026-01-01T00:00:00Z');
/** Far longer than any wait below: only the channel can wake the other instance's feed in time. */
const NO_POLL_MS = 60_000;

describe.skipIf(!TEST_DATABASE_URL)(`PostgreSQL event channel between instances (${TEST_DATABASE_URL ? 'TEST_DATABASE_URL' : SKIP_REASON})`, () => {
  const schema = uniqueSchema('ev_channel');
  const cleanup: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const done of cleanup.splice(0).reverse()) await done();
  });
  afterAll(async () => {
    await dropTestSchemas(TEST_DATABASE_URL!, [schema]);
  });

  /** What an instance's channel told its metrics. */
  class Observed implements EventChannelObserver {
    sent = 0;
    failed = 0;
    heardCount = 0;
    states: boolean[] = [];
    announced(sent: boolean): void {
      if (sent) this.sent++;
      else this.failed++;
    }
    heard(): void {
      this.heardCount++;
    }
    connected(up: boolean): void {
      this.states.push(up);
    }
  }

  /** One "instance": its own store (pool) and hub with a channel on the shared schema. */
  async function instance(name: string): Promise<{ store: PostgresStateStore; hub: RunEventHub; observed: Observed }> {
    const store = new PostgresStateStore(postgresUrlWithSchema(TEST_DATABASE_URL!, schema), { poolSize: 3 });
    await store.open();
    const observed = new Observed();
    const channel = new PostgresEventChannel({
      connectionString: store.connection.connectionString,
      schema: store.schema,
      notify: (channelName, payload) => store.pool().query('SELECT pg_notify($1, $2)', [channelName, payload]),
      instanceId: name,
      logger: silentLogger,
      observer: observed,
    });
    const hub = testHub(store, { channel, pollIntervalMs: NO_POLL_MS });
    cleanup.push(() => store.close(), () => hub.close());
    return { store, hub, observed };
  }

  it('wakes the other instance’s feed at once, carries log lines across, and recovers from a lost listening connection', async () => {
    const a = await instance('instance-a');
    const b = await instance('instance-b');
    const onB = new MemorySink();
    (await b.hub.prepareFeedStream({}, { key: 'k' })).start(onB);
    // B is listening once its LISTEN connection shows up in pg_stat_activity.
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    cleanup.push(() => admin.end());
    const listenerPid = async () => {
      const { rows } = await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE query LIKE 'LISTEN "${channelNames(schema).logs}"%' AND pid <> pg_backend_pid()`,
      );
      return rows.map((r) => r.pid);
    };
    await waitUntil(async () => (await listenerPid()).length === 1);
    // Listening (the channel says so once its LISTENs returned), and the read its connection woke is over.
    await waitUntil(async () => b.observed.states.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));

    // "At once" is B's feed reading the store right after A's write: only the channel can wake it
    // (its poll is a minute away). The event itself is handed out once the horizon passes it, and
    // the horizon is the cluster's: another test file's open transaction can hold it a while.
    const readsOnB: number[] = [];
    const readOnB = b.store.readRunEvents.bind(b.store);
    b.store.readRunEvents = (...args) => {
      readsOnB.push(Date.now());
      return readOnB(...args);
    };
    const firstReadSince = async (since: number) => {
      await waitUntil(async () => readsOnB.some((at) => at >= since));
      return readsOnB.find((at) => at >= since)! - since;
    };
    const started = Date.now();
    await a.store.mutateRun('on-a', () => withEvent(makeRun({ runId: 'on-a', taskId: 'on-a' }), AT, { kind: 'queue', name: 'admitted' }));
    expect(await firstReadSince(started)).toBeLessThan(1000);
    await onB.until(() => onB.runEvents().some((e) => e.data.runId === 'on-a'), 15_000, 'A’s event on B');
    // The metrics saw it: A sent, B heard (and B's own writes, none here, would not count as heard).
    expect(a.observed.sent).toBeGreaterThanOrEqual(1);
    expect(b.observed.heardCount).toBeGreaterThanOrEqual(1);
    expect(a.observed.heardCount).toBe(0);

    // Log lines: published on A, delivered to B's stream of that run (and cut when long).
    const ofRun = new MemorySink();
    (await b.hub.prepareRunStream('on-a', { key: 'k' })).start(ofRun);
    await ofRun.until(() => ofRun.runEvents().length === 1);
    const line: RunLogLine = { runId: 'on-a', attemptId: 'on-a#1', at: AT.toISOString(), stream: 'stderr', line: 'y'.repeat(10_000) };
    a.hub.publishLogLine(line);
    a.hub.publishLogLine({ ...line, line: 'short' });
    await ofRun.until(() => ofRun.frames.filter((f) => f.event === 'log').length === 2, 5000, 'the log lines');
    const logs = ofRun.frames.filter((f) => f.event === 'log').map((f) => JSON.parse(f.data) as RunLogLine);
    expect(logs[0]!.line.length).toBeLessThan(2100);
    expect(logs[0]!.line.startsWith('y'.repeat(2000))).toBe(true);
    expect(logs[1]).toEqual({ ...line, line: 'short' });

    // The listening connection dies; B reconnects, and A's next write still wakes it at once.
    const [pid] = await listenerPid();
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await waitUntil(async () => {
      const pids = await listenerPid();
      return pids.length === 1 && pids[0] !== pid;
    }, 10_000);
    await waitUntil(async () => b.observed.states.length === 3);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const again = Date.now();
    await a.store.mutateRun('on-a-2', () => withEvent(makeRun({ runId: 'on-a-2', taskId: 'on-a-2' }), AT, { kind: 'queue', name: 'admitted' }));
    expect(await firstReadSince(again)).toBeLessThan(1000);
    expect(b.observed.states).toEqual([true, false, true]);
    await onB.until(() => onB.runEvents().some((e) => e.data.runId === 'on-a-2'), 15_000, 'the event after the reconnect');
    expect(onB.runEvents().map((e) => e.data.runId)).toEqual(['on-a', 'on-a-2']);
  }, 60_000);

  it('tells the other instance’s runner at once that runs were admitted there, with no stream open', async () => {
    const a = await instance('runner-a');
    const b = await instance('runner-b');
    let wakes = 0;
    const heard: RunEventsWritten[] = [];
    const stop = b.hub.onOtherInstanceWrite((written) => {
      wakes++;
      heard.push(written);
    });
    cleanup.push(async () => stop());
    // B listens once its LISTEN connection is up; the channel wakes it once on connecting.
    await waitUntil(async () => wakes >= 1);
    const before = wakes;
    const started = Date.now();
    await a.store.mutateRunAndAppend('admitted-on-a', (current) => (current ? null : withEvent(makeRun({ runId: 'admitted-on-a', taskId: 'admitted-on-a' }), AT, { kind: 'queue', name: 'admitted' })), () => []);
    await waitUntil(async () => wakes > before);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(heard.at(-1)).toEqual({ readyRuns: true, runsLeftRunning: false });
    // A claims it: B hears a write that left nothing to claim; A finishes it: a slot is free.
    const claimed = await a.store.claimRuns({ typeLimits: {} }, 10, (run) => markRunning(run, 'runner-a', new Date(Date.now() + 60_000), new Date()));
    expect(claimed.map((run) => run.runId)).toContain('admitted-on-a');
    await waitUntil(async () => wakes > before + 1);
    expect(heard.at(-1)).toEqual({ readyRuns: false, runsLeftRunning: false });
    await a.store.mutateRun('admitted-on-a', (current) => (current ? withEvent({ ...current, status: 'success', claim: null }, AT, { kind: 'execution', name: 'succeeded' }) : null));
    await waitUntil(async () => wakes > before + 2);
    expect(heard.at(-1)).toEqual({ readyRuns: false, runsLeftRunning: true });
    // B's own writes do not wake B.
    const own = wakes;
    await b.store.mutateRunAndAppend('admitted-on-b', (current) => (current ? null : withEvent(makeRun({ runId: 'admitted-on-b', taskId: 'admitted-on-b' }), AT, { kind: 'queue', name: 'admitted' })), () => []);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(wakes).toBe(own);
  });
});
if (!TEST_DATABASE_URL) it.skip(SKIP_REASON, () => undefined);

describe('announcement payloads', () => {
  it('carry the sender and what the writes changed for a runner; a sender alone (an earlier release) may have changed anything', () => {
    const cases: RunEventsWritten[] = [
      { readyRuns: true, runsLeftRunning: false },
      { readyRuns: false, runsLeftRunning: true },
      { readyRuns: true, runsLeftRunning: true },
      { readyRuns: false, runsLeftRunning: false },
    ];
    for (const written of cases) expect(parseAnnouncement(announcementPayload('instance-1', written))).toEqual({ sender: 'instance-1', written });
    expect(parseAnnouncement('instance-1')).toEqual({ sender: 'instance-1', written: { readyRuns: true, runsLeftRunning: true } });
  });
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
