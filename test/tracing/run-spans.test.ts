import { join } from 'node:path';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { composeService } from '../../src/app.js';
import { systemClock } from '../../src/clock.js';
import type { AppConfig } from '../../src/config/types.js';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import { buildServer } from '../../src/http/server.js';
import { createMetrics } from '../../src/metrics.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { admitDueRetries } from '../../src/runtime/retry-scanner.js';
import { toTraceparent } from '../../src/tracing/traceparent.js';
import { tempDir, testConfig, writeConfigFile } from '../support/config.js';
import { readExecutionLog } from '../support/execution-log.js';
import { bearer, TEST_KEYS } from '../support/keys.js';
import { STAND_IN_AGENTS_DIR } from '../support/paths.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';
import { idOf, memoryTracing, parentOf, traceOf, type MemoryTracing } from '../support/tracing.js';

const TRIGGER = '/api/tasks/trigger';
/** Text only the payload carries: no span attribute may contain it. */
const PAYLOAD_MARKER = 'payload-text-that-must-stay-out-of-spans';

interface Instance {
  store: StateStore;
  server: FastifyInstance;
  service: ReturnType<typeof composeService>;
  tracing: MemoryTracing;
  started: boolean;
  close(): Promise<void>;
}

function configFor(dir: string, fields: Record<string, unknown> = {}, env: Record<string, string> = {}): AppConfig {
  const file = writeConfigFile(dir, { agentsDir: STAND_IN_AGENTS_DIR, schedulerEnabled: false, docWatcher: false, ...fields });
  return testConfig({ ORCHESTRATOR_CONFIG: file, ...env }, dir);
}

/** The service's parts over `config`, each instance with a tracer exporting into its own memory. */
async function startInstance(config: AppConfig, runner: boolean): Promise<Instance> {
  const tracing = memoryTracing();
  const logger = pino({ level: 'silent' });
  const store = openStateStore(config.stateTarget, { databaseUrl: config.databaseUrl, logger });
  await store.open();
  const coordination = new MemoryCoordination({ cacheMaxEntries: 100, cacheMaxBytes: 1_000_000 });
  const service = composeService({ config, logger, clock: systemClock, store, coordination, metricsPort: null, tracer: tracing.tracer });
  const server = await buildServer({ config, coordination, logger, metrics: createMetrics(), tracer: tracing.tracer }, service.routes);
  if (runner) await service.runtime.start();
  return {
    store,
    server,
    service,
    tracing,
    started: runner,
    async close() {
      await service.events.close();
      await server.close();
      if (runner) await service.runtime.stop(2000);
      await store.close();
    },
  };
}

async function trigger(instance: Instance, body: unknown, headers: Record<string, string> = {}) {
  const res = await instance.server.inject({ method: 'POST', url: TRIGGER, headers: { ...bearer(TEST_KEYS.operator), ...headers }, payload: body as object });
  return { status: res.statusCode, body: res.json() as { runId: string; status: string } };
}

/** Waits until the finalize span of `runId` was exported by `tracing` (after its run's final write). */
async function finalized(tracing: MemoryTracing, runId: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const span = tracing.named('task.finalize').find((s) => s.attributes['task.run_id'] === runId);
    if (span) return span;
    if (Date.now() > deadline) throw new Error(`no finalize span for ${runId}; spans: ${tracing.spans().map((s) => s.name).join(', ')}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const forRun = (tracing: MemoryTracing, name: string, runId: string) => tracing.named(name).filter((s) => s.attributes['task.run_id'] === runId);

const instances: Instance[] = [];
afterEach(async () => {
  for (const instance of instances.splice(0)) await instance.close();
});

describe('spans of one run on one instance', () => {
  it('chain the request, admission, queue wait, execution and finalize in one trace, and hand the worker its span', async () => {
    const dir = tempDir('orch-trace-');
    const instance = await startInstance(configFor(dir), true);
    instances.push(instance);
    const log = join(dir, 'executions.jsonl');
    // A caller that traces: the request span continues its trace.
    const callerTrace = '0af7651916cd43dd8448eb211c80319c';
    const callerSpan = 'b7ad6b7169203331';
    const admitted = await trigger(
      instance,
      { type: 'summarize-content', payload: { content: PAYLOAD_MARKER, log, idempotencyKey: 'traced-run' } },
      { traceparent: `00-${callerTrace}-${callerSpan}-01` },
    );
    expect(admitted.status).toBe(202);
    const runId = admitted.body.runId;
    const finalize = await finalized(instance.tracing, runId);

    const request = instance.tracing.serverSpan('POST', TRIGGER);
    expect(request.kind).toBe(SpanKind.SERVER);
    expect(traceOf(request)).toBe(callerTrace);
    expect(parentOf(request)).toBe(callerSpan);
    expect(request.attributes['http.response.status_code']).toBe(202);
    expect(request.attributes['http.route']).toBe(TRIGGER);

    const [admission, ...moreAdmissions] = forRun(instance.tracing, 'task.admission', runId);
    expect(moreAdmissions).toHaveLength(0);
    expect(parentOf(admission!)).toBe(idOf(request));
    expect(traceOf(admission!)).toBe(callerTrace);
    expect(admission!.attributes).toMatchObject({ 'task.type': 'summarize-content', 'task.source': 'api', 'task.outcome': 'admitted', 'task.attempt': 1 });

    const [queueWait] = forRun(instance.tracing, 'task.queue_wait', runId);
    const [execution] = forRun(instance.tracing, 'task.execute', runId);
    for (const span of [queueWait!, execution!, finalize]) {
      expect(traceOf(span), span.name).toBe(callerTrace);
      expect(parentOf(span), span.name).toBe(idOf(admission!));
      expect(span.attributes['task.attempt'], span.name).toBe(1);
    }
    expect(execution!.attributes['task.outcome']).toBe('success');
    expect(execution!.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(finalize.attributes['task.outcome']).toBe('success');
    // The phases follow each other: queue wait ends as the execution starts; finalize after both.
    const ms = (t: [number, number]) => t[0] * 1000 + t[1] / 1e6;
    expect(ms(queueWait!.endTime)).toBeLessThanOrEqual(ms(execution!.startTime) + 1);
    expect(ms(finalize.startTime)).toBeGreaterThanOrEqual(ms(execution!.endTime) - 1);

    // The stored run carries its admission's context; the worker got its execution span's.
    const stored = (await instance.store.getRun(runId)) as RunRecord;
    expect(stored.traceparent).toBe(toTraceparent(admission!.spanContext()));
    const starts = readExecutionLog(log).filter((r) => r.event === 'start') as Array<{ traceparent?: string }>;
    expect(starts.map((r) => r.traceparent)).toEqual([toTraceparent(execution!.spanContext())]);

    // Identifiers and outcomes only: no payload reaches a span.
    for (const span of instance.tracing.spans()) {
      expect(JSON.stringify(span.attributes), span.name).not.toContain(PAYLOAD_MARKER);
    }
  });

  it('marks a failed attempt on its execution and finalize spans, and links a duplicate to the run it found', async () => {
    const dir = tempDir('orch-trace-fail-');
    const instance = await startInstance(configFor(dir), true);
    instances.push(instance);
    const body = { type: 'summarize-content', payload: { content: 'x', mode: 'logical-failure', idempotencyKey: 'traced-failure' } };
    const admitted = await trigger(instance, body);
    expect(admitted.status).toBe(202);
    const runId = admitted.body.runId;
    const finalize = await finalized(instance.tracing, runId);
    const [execution] = forRun(instance.tracing, 'task.execute', runId);
    expect(execution!.status.code).toBe(SpanStatusCode.ERROR);
    expect(execution!.attributes['task.outcome']).toBe('worker-logical-failure');
    expect(finalize.attributes['task.outcome']).toBe('failed');
    expect(finalize.status.code).toBe(SpanStatusCode.ERROR);

    // No incoming traceparent: the request span is the root of the run's trace.
    const [admission] = forRun(instance.tracing, 'task.admission', runId);
    const requests = instance.tracing.spans().filter((s) => s.kind === SpanKind.SERVER);
    expect(parentOf(requests[0]!)).toBeUndefined();
    expect(parentOf(admission!)).toBe(idOf(requests[0]!));

    const duplicate = await trigger(instance, body);
    expect(duplicate.status).toBe(200);
    const admissions = forRun(instance.tracing, 'task.admission', runId);
    expect(admissions).toHaveLength(2);
    const second = admissions[1]!;
    expect(second.attributes['task.outcome']).toBe('duplicate-failed');
    // Its own request's trace, linked to the trace of the run it found.
    expect(traceOf(second)).not.toBe(traceOf(admission!));
    expect(second.links.map((l) => l.context.spanId)).toEqual([idOf(admission!)]);
  });

  it('keeps a retried run in one trace: the retry admission and the second attempt under the first admission', async () => {
    const dir = tempDir('orch-trace-retry-');
    const instance = await startInstance(configFor(dir, { retry: { maxAttempts: 2, baseDelayMs: 200, maxDelayMs: 400 } }), true);
    instances.push(instance);
    const log = join(dir, 'executions.jsonl');
    const admitted = await trigger(instance, { type: 'summarize-content', payload: { content: 'x', mode: 'fail-first', log, idempotencyKey: 'traced-retry' } });
    const runId = admitted.body.runId;
    await finalized(instance.tracing, runId);
    // The retry scan (the scheduler's job, not started here) once the backoff has passed.
    const deadline = Date.now() + 10_000;
    const { service, store } = instance;
    while ((await admitDueRetries({ store, clock: systemClock, admit: service.admit, logger: pino({ level: 'silent' }) })) === 0) {
      if (Date.now() > deadline) throw new Error('the retry was never admitted');
      await new Promise((r) => setTimeout(r, 50));
    }
    const until = Date.now() + 15_000;
    while (forRun(instance.tracing, 'task.finalize', runId).length < 2) {
      if (Date.now() > until) throw new Error('the second attempt never finalized');
      await new Promise((r) => setTimeout(r, 25));
    }
    const [first, retry] = forRun(instance.tracing, 'task.admission', runId);
    expect(retry!.attributes).toMatchObject({ 'task.source': 'retry', 'task.outcome': 'retry-admitted', 'task.attempt': 2 });
    expect(parentOf(retry!)).toBe(idOf(first!));
    expect(traceOf(retry!)).toBe(traceOf(first!));
    for (const name of ['task.queue_wait', 'task.execute', 'task.finalize']) {
      const spans = forRun(instance.tracing, name, runId);
      expect(spans.map((s) => s.attributes['task.attempt']), name).toEqual([1, 2]);
      for (const span of spans) expect(parentOf(span), name).toBe(idOf(first!));
    }
    expect(forRun(instance.tracing, 'task.execute', runId).map((s) => s.attributes['task.outcome'])).toEqual(['worker-crash', 'success']);
    expect(forRun(instance.tracing, 'task.finalize', runId).map((s) => s.attributes['task.outcome'])).toEqual(['retrying', 'success']);
  });

  it('ends a cancelled attempt with a stopped execution and a cancelled finalize, in the run trace', async () => {
    const dir = tempDir('orch-trace-cancel-');
    const instance = await startInstance(configFor(dir), true);
    instances.push(instance);
    const log = join(dir, 'executions.jsonl');
    const admitted = await trigger(instance, { type: 'summarize-content', payload: { content: 'x', sleepMs: 20_000, log, idempotencyKey: 'traced-cancel' } });
    const runId = admitted.body.runId;
    // Cancel once the worker runs.
    const deadline = Date.now() + 10_000;
    while (!readExecutionLogSafe(log).some((r) => r.event === 'start')) {
      if (Date.now() > deadline) throw new Error('the worker never started');
      await new Promise((r) => setTimeout(r, 25));
    }
    const cancel = await instance.server.inject({ method: 'POST', url: `/api/tasks/runs/${runId}/cancel`, headers: bearer(TEST_KEYS.operator), payload: {} });
    expect(cancel.statusCode).toBeLessThan(300);
    const finalize = await finalized(instance.tracing, runId);
    const [admission] = forRun(instance.tracing, 'task.admission', runId);
    const [execution] = forRun(instance.tracing, 'task.execute', runId);
    expect(finalize.attributes['task.outcome']).toBe('cancelled');
    expect(parentOf(finalize)).toBe(idOf(admission!));
    expect(execution!.attributes['task.outcome']).toBe('stopped');
    expect(execution!.status.code).toBe(SpanStatusCode.ERROR);
  });
});

function readExecutionLogSafe(path: string) {
  try {
    return readExecutionLog(path);
  } catch {
    return [];
  }
}

describe.skipIf(!TEST_DATABASE_URL)(
  `spans of one run across two instances on one PostgreSQL (${TEST_DATABASE_URL ? 'TEST_DATABASE_URL' : 'TEST_DATABASE_URL unset: skipped'})`,
  () => {
    const schema = uniqueSchema('traces');
    afterEach(async () => {
      for (const instance of instances.splice(0)) await instance.close();
      await dropTestSchemas(TEST_DATABASE_URL!, [schema]);
    });

    it('continues the admitting instance trace where another instance claims, executes and finalizes the run', async () => {
      const env = { DATABASE_URL: postgresUrlWithSchema(TEST_DATABASE_URL!, schema) };
      // A admits and never claims (no runner); B claims. Each exports into its own memory.
      const a = await startInstance(configFor(tempDir('orch-trace-a-'), {}, env), false);
      instances.push(a);
      const b = await startInstance(configFor(tempDir('orch-trace-b-'), {}, env), true);
      instances.push(b);

      const admitted = await trigger(a, { type: 'summarize-content', payload: { content: 'x', idempotencyKey: 'traced-across' } });
      expect(admitted.status).toBe(202);
      const runId = admitted.body.runId;
      const finalize = await finalized(b.tracing, runId);

      const request = a.tracing.serverSpan('POST', TRIGGER);
      const [admission] = forRun(a.tracing, 'task.admission', runId);
      expect(parentOf(admission!)).toBe(idOf(request));
      // Nothing of the run's later phases happened on A.
      expect(forRun(a.tracing, 'task.execute', runId)).toHaveLength(0);

      const [queueWait] = forRun(b.tracing, 'task.queue_wait', runId);
      const [execution] = forRun(b.tracing, 'task.execute', runId);
      for (const span of [queueWait!, execution!, finalize]) {
        expect(traceOf(span), span.name).toBe(traceOf(request));
        expect(parentOf(span), span.name).toBe(idOf(admission!));
        expect(span.parentSpanContext?.isRemote, span.name).toBe(true);
      }
      expect(execution!.attributes['task.instance']).toBe(b.service.ownerId);
      expect(finalize.attributes['task.outcome']).toBe('success');
    });
  },
);
