import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { TEST_KEYS } from '../support/keys.js';
import { FIXTURES_DIR } from '../support/paths.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

/** Preloaded into the service: records each @opentelemetry module it imports (fixture). */
const RECORDER = pathToFileURL(join(FIXTURES_DIR, 'module-load-recorder.mjs')).href;

interface Started {
  service: RuntimeService;
  /** The @opentelemetry modules the service imported so far. */
  loadedModules(): string[];
}

const running: Array<{ kill(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.kill();
});

async function startTracedService(env: Record<string, string>): Promise<Started> {
  const base = tempDir('orch-otlp-');
  const moduleLog = join(base, 'modules.log');
  const service = await startRuntimeService({}, base, { ...env, NODE_OPTIONS: `--import=${RECORDER}`, MODULE_LOAD_LOG: moduleLog });
  running.push(service.service);
  return {
    service,
    loadedModules: () => (existsSync(moduleLog) ? readFileSync(moduleLog, 'utf8').split('\n').filter((l) => l !== '') : []),
  };
}

async function runToSuccess(service: RuntimeService, key: string): Promise<string> {
  const admitted = await service.api.trigger<{ runId: string }>('summarize-content', { content: 'x', idempotencyKey: key });
  expect(admitted.status).toBe(202);
  const runId = admitted.body.runId;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const run = await service.api.run<{ status: string }>(runId);
    if (run.body.status === 'success') return runId;
    if (Date.now() > deadline) throw new Error(`run ${runId} did not succeed: ${run.body.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function spansOfRun(receiver: OtlpReceiver, runId: string): Promise<ReceivedSpan[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const spans = receiver.spans.filter((s) => s.attributes['task.run_id'] === runId);
    if (spans.some((s) => s.name === 'task.finalize')) return spans;
    if (Date.now() > deadline) throw new Error(`no finalize span of ${runId} exported; received ${receiver.spans.map((s) => s.name).join(', ')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** SDK, exporter and resource modules: what tracing off must never load. */
const isSdkModule = (url: string) => /@opentelemetry\/(sdk-|exporter-|otlp-|resources|core|context-)/.test(url);

describe('OTLP/HTTP export of the built service', () => {
  it('exports the run spans with their links to the endpoint OTEL_EXPORTER_OTLP_ENDPOINT names, as OTEL_SERVICE_NAME', async () => {
    const receiver = await startOtlpReceiver();
    running.push({ kill: () => receiver.close() });
    const started = await startTracedService({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'orchestrator-under-test',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    const runId = await runToSuccess(started.service, 'exported-run');
    const spans = await spansOfRun(receiver, runId);

    expect(new Set(receiver.paths)).toEqual(new Set(['/v1/traces']));
    // No protocol set: JSON.
    expect(new Set(receiver.contentTypes)).toEqual(new Set(['application/json']));
    const byName = (name: string) => {
      const found = spans.filter((s) => s.name === name);
      expect(found, name).toHaveLength(1);
      return found[0]!;
    };
    const admission = byName('task.admission');
    const request = receiver.spans.find((s) => s.spanId === admission.parentSpanId);
    expect(request?.name).toBe('POST /api/tasks/trigger');
    expect(request?.attributes['http.response.status_code']).toBe(202);
    for (const name of ['task.queue_wait', 'task.execute', 'task.finalize']) {
      const span = byName(name);
      expect(span.traceId, name).toBe(admission.traceId);
      expect(span.parentSpanId, name).toBe(admission.spanId);
      expect(span.attributes['task.type'], name).toBe('summarize-content');
    }
    expect(byName('task.finalize').attributes['task.outcome']).toBe('success');
    expect(spans.every((s) => s.serviceName === 'orchestrator-under-test')).toBe(true);
    // The recorder sees the SDK once tracing is on: its silence below means something.
    expect(started.loadedModules().some(isSdkModule)).toBe(true);
  });

  it('exports protobuf when OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf, with the same spans and links', async () => {
    const receiver = await startOtlpReceiver();
    running.push({ kill: () => receiver.close() });
    const started = await startTracedService({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_BSP_SCHEDULE_DELAY: '100' });
    const runId = await runToSuccess(started.service, 'protobuf-run');
    const spans = await spansOfRun(receiver, runId);
    expect(new Set(receiver.contentTypes)).toEqual(new Set(['application/x-protobuf']));
    expect(spans.every((s) => /^[0-9a-f]{32}$/.test(s.traceId) && /^[0-9a-f]{16}$/.test(s.spanId))).toBe(true);
    expect(spans.find((s) => s.name === 'task.finalize')?.attributes['task.outcome']).toBe('success');
    const admission = spans.find((s) => s.name === 'task.admission')!;
    expect(spans.filter((s) => s.name !== 'task.admission').every((s) => s.traceId === admission.traceId && s.parentSpanId === admission.spanId)).toBe(true);
    expect(spans.map((s) => s.name).sort()).toEqual(['task.admission', 'task.execute', 'task.finalize', 'task.queue_wait']);
  });

  it('says so in its log and exports JSON when asked for a protocol it does not speak (grpc)', async () => {
    const receiver = await startOtlpReceiver();
    running.push({ kill: () => receiver.close() });
    const started = await startTracedService({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc', OTEL_BSP_SCHEDULE_DELAY: '100' });
    const runId = await runToSuccess(started.service, 'grpc-run');
    await spansOfRun(receiver, runId);
    expect(new Set(receiver.contentTypes)).toEqual(new Set(['application/json']));
    expect(started.service.service.output.join('\n')).toContain('OTLP protocol grpc is not supported; exporting http/json');
  });

  it('ends and exports the request span of an event stream when the stream closes', async () => {
    const receiver = await startOtlpReceiver();
    running.push({ kill: () => receiver.close() });
    const started = await startTracedService({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '100' });
    const streamed = () => receiver.spans.filter((s) => s.name === 'GET /api/events');
    const closed = new AbortController();
    const res = await fetch(`${started.service.service.url}/api/events`, { headers: { authorization: `Bearer ${TEST_KEYS.viewer}` }, signal: closed.signal });
    expect(res.status).toBe(200);
    // Open: its span has not ended, so nothing of it is exported.
    await new Promise((r) => setTimeout(r, 400));
    expect(streamed()).toEqual([]);
    closed.abort();
    const deadline = Date.now() + 10_000;
    while (streamed().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(streamed()).toHaveLength(1);
    expect(streamed()[0]!.attributes['http.response.status_code']).toBe(200);
  });

  it('sends the spans still buffered when the service stops', async () => {
    const receiver = await startOtlpReceiver();
    running.push({ kill: () => receiver.close() });
    // A batch delay far beyond the test: only the stop can send them.
    const started = await startTracedService({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '600000' });
    const runId = await runToSuccess(started.service, 'flushed-at-stop');
    expect(receiver.spans.filter((s) => s.attributes['task.run_id'] === runId)).toEqual([]);
    await started.service.service.kill('SIGTERM');
    const names = (await spansOfRun(receiver, runId)).map((s) => s.name).sort();
    expect(names).toEqual(['task.admission', 'task.execute', 'task.finalize', 'task.queue_wait']);
  });

  it('with no endpoint set, loads no OpenTelemetry module at all and runs work as usual', async () => {
    const started = await startTracedService({ OTEL_SERVICE_NAME: 'orchestrator-untraced' });
    await runToSuccess(started.service, 'untraced-run');
    expect(started.loadedModules()).toEqual([]);
  });

  it('with an endpoint but OTEL_TRACES_EXPORTER=none, exports nothing and loads no SDK', async () => {
    const receiver = await startOtlpReceiver();
    running.push({ kill: () => receiver.close() });
    const started = await startTracedService({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_EXPORTER: 'none', OTEL_BSP_SCHEDULE_DELAY: '100' });
    await runToSuccess(started.service, 'vetoed-run');
    // Longer than a few export intervals of the delay above.
    await new Promise((r) => setTimeout(r, 600));
    expect(receiver.paths).toEqual([]);
    expect(started.loadedModules().filter(isSdkModule)).toEqual([]);
  });
});
