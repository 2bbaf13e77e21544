import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisCoordination } from '../../src/coordination/redis.js';
import { deleteKeysWithPrefix } from '../support/redis.js';
import { SAMPLE_BUSINESS_REGISTRY } from '../../src/demo/sample-business-registry.js';
import { DomainError } from '../../src/domain/errors.js';
import { markFailed, markSucceeded } from '../../src/runtime/run-transitions.js';
import { businessHarness, writeRegistry, type Harness } from '../support/business-harness.js';
import { OPERATOR } from '../support/identities.js';

async function refusal(promise: Promise<unknown>): Promise<{ code: string; details: unknown }> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, 'expected a refusal').toBeInstanceOf(DomainError);
  return { code: (err as DomainError).code, details: (err as DomainError).details };
}

async function finishRun(h: Harness, runId: string, outcome: 'success' | 'failed') {
  await h.store.mutateRun(runId, (run) => {
    if (!run) return null;
    const now = h.clock.now();
    return outcome === 'success'
      ? markSucceeded(run, now, { result: {}, accounting: null as never, operatorSummary: null, recommendedNextActions: null, specialistContract: null })
      : markFailed(run, now, { error: 'worker crashed', failureReason: 'worker-crash', retry: null });
  });
}

/** Admitted task runs other than the cycle runs themselves. */
const tasks = (h: Harness) => h.admitted.filter((r) => r.type !== 'business-value-cycle');

describe('business cycles', () => {
  let h: Harness;
  afterEach(async () => {
    await h?.close();
  });

  it('answers 409 active while a cycle runs and 409 cooldown for a click within 30 s, then accepts', async () => {
    h = await businessHarness();
    writeRegistry(h.config);
    const first = await h.business.service.trigger('first', OPERATOR);
    // An operator's cycle run takes its task id as its run id: both ids of the answer are the run's.
    expect(first).toMatchObject({ status: 'queued', runId: first.taskId });
    expect(await refusal(h.business.service.trigger('again', OPERATOR))).toMatchObject({ code: 'conflict', details: { decision: 'active' } });

    await h.execute(first.runId);
    h.clock.advance(10_000);
    const cooldown = await refusal(h.business.service.trigger('click', OPERATOR));
    expect(cooldown).toEqual({ code: 'conflict', details: { decision: 'cooldown', until: '2026-11-23T10:00:30.000Z' } });

    h.clock.advance(21_000);
    expect((await h.business.service.trigger('later', OPERATOR)).status).toBe('queued');
  });

  it('enqueues at most one task per cycle, through admission with a stable key, and records it', async () => {
    h = await businessHarness();
    writeRegistry(h.config);
    const { cycleId, runId } = await h.business.service.trigger(undefined, OPERATOR);
    await h.execute(runId);
    // A second execution of the same cycle run (a restart re-running it) enqueues nothing more.
    await h.execute(runId);
    expect(tasks(h)).toHaveLength(1);
    expect(tasks(h)[0]).toMatchObject({ type: 'content-generate', forceRunId: `business-task:${cycleId}`, requestedBy: 'business-planner' });

    const cycle = await h.business.service.cycleDetail(cycleId);
    expect(cycle).toMatchObject({
      state: 'completed',
      selected: { candidateId: 'initiative:reorder-accuracy', taskType: 'content-generate', runId: `business-task:${cycleId}`, admission: 'admitted' },
      blockers: [],
    });
    expect(cycle.approvalGated.map((c) => c.kind).sort()).toEqual(['commercial-commitment', 'outreach', 'private-source-access']);
    expect(cycle.evidence[0]).toMatch(/schema 2\.0\.1 fingerprint [0-9a-f]{16}/);

    // The next cycle passes over the candidate still in flight and picks the next eligible one.
    h.clock.advance(60_000);
    const next = await h.business.service.trigger(undefined, OPERATOR);
    await h.execute(next.runId);
    expect(tasks(h)).toHaveLength(2);
    expect((await h.business.service.cycleDetail(next.cycleId)).selected?.candidateId).toBe('coverage-gap:no-reorder-tests');
  });

  it('never enqueues outreach, publishing, deployment, secret or private-source access or commitments', async () => {
    h = await businessHarness();
    const registry = JSON.parse(JSON.stringify(SAMPLE_BUSINESS_REGISTRY));
    registry.approvalPolicy.autoEnqueueTaskTypes = [];
    registry.businessRisks.push({
      id: 'publish',
      title: 'Nobody knows the product',
      likelihood: 5,
      impact: 5,
      status: 'open',
      mitigation: { kind: 'publishing', summary: 'Publish a launch post' },
    });
    registry.coverageGaps.push({
      id: 'deploy',
      area: 'Hosting',
      severity: 'critical',
      description: 'Not deployed',
      nextAction: { kind: 'deployment', summary: 'Deploy to production' },
    });
    registry.pipeline.push({
      id: 'vault',
      title: 'Partner',
      stage: 'negotiation',
      valueUsd: 1000,
      nextAction: { kind: 'secret-access', summary: 'Read the partner API secret' },
    });
    writeRegistry(h.config, registry);
    const { cycleId, runId } = await h.business.service.trigger(undefined, OPERATOR);
    await h.execute(runId);
    expect(tasks(h)).toEqual([]);
    const cycle = await h.business.service.cycleDetail(cycleId);
    expect(cycle.state).toBe('blocked');
    expect(cycle.approvalGated.map((c) => c.kind).sort()).toEqual([
      'commercial-commitment',
      'deployment',
      'outreach',
      'private-source-access',
      'publishing',
      'secret-access',
    ]);
    const ops = await h.business.service.operations();
    expect(ops.approvalGatedCandidates).toHaveLength(6);
    expect(ops.selectedModel).toEqual({ value: null, reason: expect.stringContaining('no model evidence') });
  });

  it('blocks a cycle on a missing or invalid registry and names the field', async () => {
    h = await businessHarness();
    const registry = JSON.parse(JSON.stringify(SAMPLE_BUSINESS_REGISTRY));
    registry.strategicInitiatives[0].priority = 0;
    writeRegistry(h.config, registry);
    const { cycleId, runId } = await h.business.service.trigger(undefined, OPERATOR);
    await h.execute(runId);
    const cycle = await h.business.service.cycleDetail(cycleId);
    expect(cycle.state).toBe('blocked');
    expect(cycle.registry?.problems.map((p) => p.path)).toContain('/strategicInitiatives/0/priority');
    expect(tasks(h)).toEqual([]);
  });

  it('retries failed cycles only, once each; failures back off 15 min × 2^(n−1)', async () => {
    h = await businessHarness();
    writeRegistry(h.config);
    const done = await h.business.service.trigger(undefined, OPERATOR);
    await h.execute(done.runId);
    expect(await refusal(h.business.service.retry(done.cycleId, OPERATOR))).toMatchObject({ code: 'conflict', details: { decision: 'not-failed' } });
    expect((await refusal(h.business.service.retry('no-such-cycle', OPERATOR))).code).toBe('not_found');

    // A cycle whose task cannot be admitted fails.
    h.clock.advance(60_000);
    h.failAdmissionOf.type = 'content-generate';
    const failing = await h.business.service.trigger(undefined, OPERATOR);
    await expect(h.execute(failing.runId)).rejects.toThrow(/failed for the test/);
    expect((await h.business.service.cycleDetail(failing.cycleId)).state).toBe('failed');
    h.failAdmissionOf.type = null;

    h.clock.advance(60_000);
    expect(await refusal(h.business.service.trigger(undefined, OPERATOR))).toEqual({
      code: 'conflict',
      details: { decision: 'backoff', until: '2026-11-23T10:16:00.000Z' },
    });

    const retried = await h.business.service.retry(failing.cycleId, OPERATOR);
    expect(retried).toMatchObject({ status: 'queued', retryOf: failing.cycleId });
    expect(await refusal(h.business.service.retry(failing.cycleId, OPERATOR))).toMatchObject({ details: { decision: 'already-retried' } });
    expect(await refusal(h.business.service.trigger(undefined, OPERATOR))).toMatchObject({ details: { decision: 'active' } });
    await h.execute(retried.runId);
    expect((await h.business.service.cycleDetail(retried.cycleId)).state).toBe('completed');
    // Success clears the backoff.
    expect((await h.business.service.operations()).failureBackoff).toBeNull();
  });

  it('marks the cycle failed when its run failed, and doubles the backoff on the next failure', async () => {
    h = await businessHarness();
    writeRegistry(h.config);
    const a = await h.business.service.trigger(undefined, OPERATOR);
    await finishRun(h, a.runId, 'failed');
    const ops = await h.business.service.operations();
    expect(ops.cycleState).toBe('active');
    // The next decision reconciles it: failed, first backoff of 15 min.
    expect(await refusal(h.business.service.trigger(undefined, OPERATOR))).toMatchObject({ details: { decision: 'backoff', until: '2026-11-23T10:15:00.000Z' } });
    expect((await h.business.service.cycleDetail(a.cycleId)).state).toBe('failed');

    const b = await h.business.service.retry(a.cycleId, OPERATOR);
    h.clock.advance(60_000);
    await finishRun(h, b.runId, 'failed');
    expect(await refusal(h.business.service.trigger(undefined, OPERATOR))).toMatchObject({ details: { decision: 'backoff', until: '2026-11-23T10:31:00.000Z' } });
  });

  it('reconciles an orphaned lock (older than 30 min, no live run) before deciding', async () => {
    h = await businessHarness();
    writeRegistry(h.config);
    const lost = await h.business.service.trigger(undefined, OPERATOR);
    // The run vanished (a store restored from before its admission, say): only the marker remains.
    await h.store.mutateRun(lost.runId, (run) => (run ? markFailed(run, h.clock.now(), { error: 'x', failureReason: 'x', retry: null }) : null));
    await h.store.putDoc('business', 'scheduler', {
      ...(await h.store.getDoc('business', 'scheduler')),
      activeLock: { cycleId: lost.cycleId, runId: 'business-cycle:gone', acquiredAt: h.clock.now().toISOString(), ownerId: 'ops' },
    });
    h.clock.advance(10 * 60_000);
    expect(await refusal(h.business.service.trigger(undefined, OPERATOR))).toMatchObject({ details: { decision: 'active' } });

    h.clock.advance(21 * 60_000);
    const fresh = await h.business.service.trigger(undefined, OPERATOR);
    expect(fresh.status).toBe('queued');
    const orphan = await h.business.service.cycleDetail(lost.cycleId);
    expect(orphan.state).toBe('failed');
    expect(orphan.error).toMatch(/^orphaned lock: no live execution for cycle run business-cycle:gone \(run missing\)/);
    // An orphan is not a planner failure: no backoff.
    expect((await h.business.service.operations()).failureBackoff).toBeNull();
  });

  it('persists pause, resume and disable across a restart', async () => {
    h = await businessHarness();
    writeRegistry(h.config);
    expect((await h.business.service.setScheduler('pause', OPERATOR)).scheduler).toMatchObject({ mode: 'paused', modeChangedBy: 'ops', nextRunAt: null });
    expect(await refusal(h.business.service.trigger(undefined, OPERATOR))).toMatchObject({ details: { decision: 'paused' } });
    await h.close();

    h = await businessHarness({ config: h.config, clock: h.clock });
    expect((await h.business.service.operations()).automaticMode).toBe('paused');
    expect(await h.business.service.evaluateSchedule()).toEqual({ outcome: 'skipped', reason: 'paused' });
    const resumed = await h.business.service.setScheduler('enable', OPERATOR);
    expect(resumed.scheduler).toMatchObject({ mode: 'enabled', nextRunAt: '2026-11-23T12:17:00.000Z' });
    await h.business.service.setScheduler('disable', OPERATOR);
    await h.close();

    h = await businessHarness({ config: h.config, clock: h.clock });
    expect((await h.business.service.operations()).automaticMode).toBe('disabled');
    expect(await refusal(h.business.service.trigger(undefined, OPERATOR))).toMatchObject({ details: { decision: 'disabled' } });
    await h.business.service.setScheduler('resume', OPERATOR);
    expect((await h.business.service.trigger(undefined, OPERATOR)).status).toBe('queued');
  });

  it('schedules: skips active, not-due and unchanged slots, starts when the inputs change', async () => {
    h = await businessHarness();
    writeRegistry(h.config);
    const first = await h.business.service.evaluateSchedule();
    expect(first).toEqual({ outcome: 'started', reason: 'due', cycleId: 'scheduled-2026-11-23T100000000Z' });
    expect(await h.business.service.evaluateSchedule()).toEqual({ outcome: 'skipped', reason: 'active' });
    await h.execute('business-cycle:scheduled-2026-11-23T100000000Z');

    h.clock.advance(60 * 60_000);
    expect(await h.business.service.evaluateSchedule()).toEqual({ outcome: 'skipped', reason: 'not-due' });
    h.clock.advance(5 * 60 * 60_000);
    // Same registry, and the task it enqueued has not moved: nothing to plan anew.
    expect(await h.business.service.evaluateSchedule()).toEqual({ outcome: 'skipped', reason: 'unchanged' });
    await finishRun(h, 'business-task:scheduled-2026-11-23T100000000Z', 'success');
    expect((await h.business.service.evaluateSchedule()).outcome).toBe('started');
    const ops = await h.business.service.operations();
    expect(ops.lastTrigger).toMatchObject({ source: 'schedule', reason: 'scheduled cadence' });
  });

  it('puts a business-value-cycle triggered as a plain task through the same gate', async () => {
    h = await businessHarness();
    writeRegistry(h.config);
    await h.admit({ type: 'business-value-cycle', payload: { idempotencyKey: 'direct-1' }, source: 'api', requestedBy: 'ops' });
    const done = await h.execute('direct-1');
    expect(done.result).toMatchObject({ cycleId: 'cycle-run-direct-1', state: 'completed' });
    expect((await h.business.service.cycleDetail('cycle-run-direct-1')).trigger).toMatchObject({ source: 'task' });

    await h.admit({ type: 'business-value-cycle', payload: { idempotencyKey: 'direct-2' }, source: 'api', requestedBy: 'ops' });
    await expect(h.execute('direct-2')).rejects.toThrow(/^business cycle refused \(cooldown\)/);
    expect(tasks(h)).toHaveLength(1);
  });

  it('starts one cycle when two instances evaluate the same slot at once', async () => {
    h = await businessHarness();
    writeRegistry(h.config);
    const other = h.another();
    const outcomes = await Promise.all([h.business.service.evaluateSchedule(), other.service.evaluateSchedule()]);
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(['skipped', 'started']);
    expect(h.admitted.filter((r) => r.type === 'business-value-cycle')).toHaveLength(1);
  });

  it.skipIf(!process.env.TEST_REDIS_URL)('starts one cycle when two instances with their own Redis connections race (needs TEST_REDIS_URL)', async () => {
    const url = process.env.TEST_REDIS_URL!;
    const keyPrefix = `orch-test-business-${randomUUID()}:`;
    const connect = () => RedisCoordination.connect(url, pino({ level: 'silent' }), { keyPrefix, connectTimeoutMs: 1500 });
    const [a, b] = await Promise.all([connect(), connect()]);
    try {
      h = await businessHarness({ coordination: a });
      writeRegistry(h.config);
      const other = h.another(b);
      const outcomes = await Promise.all([h.business.service.evaluateSchedule(), other.service.evaluateSchedule()]);
      expect(outcomes.map((o) => o.outcome).sort()).toEqual(['skipped', 'started']);
      expect(h.admitted.filter((r) => r.type === 'business-value-cycle')).toHaveLength(1);
    } finally {
      await Promise.all([a.close(), b.close()]);
      await deleteKeysWithPrefix(url, keyPrefix);
    }
  });
});
