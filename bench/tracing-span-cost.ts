/**
 * The main-thread cost of tracing one run, in isolation: a run's five spans (request, admission,
 * queue wait, execution, finalize) made through the service's tracer, at a steady rate, and what
 * each export pipeline then costs. A steadier figure than the `tracing` bench scenario, whose
 * throughput moves with whatever else the host runs.
 *
 *   npx tsc -p tsconfig.build.json && npx tsx bench/tracing-span-cost.ts [pipeline...] [--rate N] [--seconds N]
 *
 * Pipelines: `off` (tracing off: the floor of the driving loop itself), `discard` (spans made, then dropped: creation alone), `json` and `proto` (spans
 * batched by 512 and serialised to an OTLP request body on this thread, as the SDK exporter does,
 * no HTTP), `service` and `service-proto` (the service's own tracing setup, exporting OTLP JSON
 * (its default) or protobuf over HTTP to a loopback receiver on another thread). The tracer is the built one (dist/): run from sources through tsx, its
 * closures would carry the transform's naming helpers, which cost more than some of what is
 * measured here.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import pino from 'pino';
import type { createOtelServiceTracer as CreateTracer } from '../src/tracing/otel-service-tracer.js';
import { noopServiceTracer, type ServiceTracer } from '../src/tracing/service-tracer.js';
import type { Tracing } from '../src/tracing/setup.js';
import { ROOT } from './lib/paths.js';

/** The built tracing modules; TRACING_DIST names another build's (to compare two versions). */
const DIST_TRACING = process.env.TRACING_DIST ?? join(ROOT, 'dist', 'src', 'tracing');
const BATCH = 512;
const CLOCK_TICKS_PER_SEC = 100;
const TICK_MS = 5;

interface Options {
  pipelines: string[];
  rate: number;
  seconds: number;
  repeat: number;
  /** Set in a measuring child: the one pipeline it measures. */
  child: string | null;
}

function parseArgs(argv: string[]): Options {
  const pipelines: string[] = [];
  let rate = 2000;
  let seconds = 4;
  let repeat = 3;
  let child: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--rate') rate = Number(argv[++i]);
    else if (arg === '--seconds') seconds = Number(argv[++i]);
    else if (arg === '--repeat') repeat = Number(argv[++i]);
    else if (arg === '--child') child = argv[++i]!;
    else pipelines.push(arg);
  }
  return { pipelines: pipelines.length > 0 ? pipelines : ['off', 'discard', 'json', 'proto', 'service', 'service-proto'], rate, seconds, repeat, child };
}

/** This thread's CPU ms (the main thread's line in /proc), the figure the bench scenario reports. */
function mainThreadCpuMs(): number {
  const stat = readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SEC;
}

function processCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** An OTLP/HTTP receiver on its own thread, so its work is not counted as this thread's. */
async function startReceiverThread(): Promise<{ url: string; bodies(): Promise<number>; stop(): Promise<void> }> {
  const source = `
const { parentPort } = require('node:worker_threads');
const { createServer } = require('node:http');
let bodies = 0;
const server = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => { bodies++; res.writeHead(200, { 'content-type': 'application/json' }).end('{}'); });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', () => parentPort.postMessage({ bodies }));
`;
  const worker = new Worker(source, { eval: true });
  const { port } = await new Promise<{ port: number }>((resolve) => worker.once('message', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    bodies: () =>
      new Promise((resolve) => {
        worker.once('message', (m: { bodies: number }) => resolve(m.bodies));
        worker.postMessage('count');
      }),
    stop: async () => {
      await worker.terminate();
    },
  };
}

/** A processor that batches ended spans by 512 and hands each batch to `sink` on this thread. */
function batchingProcessor(sink: (spans: ReadableSpan[]) => void): SpanProcessor {
  let batch: ReadableSpan[] = [];
  return {
    onStart() {},
    onEnd(span) {
      batch.push(span);
      if (batch.length >= BATCH) {
        sink(batch);
        batch = [];
      }
    },
    forceFlush: async () => {},
    shutdown: async () => {},
  };
}

interface Pipeline {
  tracer: ServiceTracer;
  stop(): Promise<void>;
}

async function providerPipeline(sink: (spans: ReadableSpan[]) => void): Promise<Pipeline> {
  const { createOtelServiceTracer } = (await import(pathToFileURL(join(DIST_TRACING, 'otel-service-tracer.js')).href)) as { createOtelServiceTracer: typeof CreateTracer };
  const resource = defaultResource().merge(resourceFromAttributes({ 'service.name': 'span-cost' }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [batchingProcessor(sink)] });
  return { tracer: createOtelServiceTracer(provider.getTracer('task-orchestrator')), stop: () => provider.shutdown() };
}

/** The service's own exporter set-up, JSON (its default) or protobuf over HTTP to the receiver. */
async function servicePipeline(receiverUrl: string, protocol: 'http/protobuf' | 'http/json'): Promise<Pipeline> {
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiverUrl;
  const { startOtlpTracing } = (await import(pathToFileURL(join(DIST_TRACING, 'otlp-sdk.js')).href)) as {
    startOtlpTracing: (logger: pino.Logger, protocol: 'http/protobuf' | 'http/json') => Tracing;
  };
  const tracing = startOtlpTracing(pino({ level: 'warn' }), protocol);
  return { tracer: tracing.tracer, stop: () => tracing.shutdown() };
}

/** One run's spans, in the order and with the reads the service makes them. */
function traceOneRun(tracer: ServiceTracer, n: number): void {
  const request = tracer.startRequest('POST', '/api/tasks/trigger', undefined);
  const admission = tracer.startAdmission('doc-sync', 'api', request.traceparent);
  const run = { runId: `span-cost-${n}`, type: 'doc-sync', attempt: 1, traceparent: admission.traceparent };
  admission.identify(run, null);
  admission.end('admitted');
  request.end(202);
  const claimed = new Date();
  tracer.recordQueueWait(run, claimed, claimed, 'instance-1');
  const execution = tracer.startExecution(run, 'instance-1');
  void execution.traceparent;
  execution.end('success');
  tracer.startFinalize(run).end('success');
}

/** Runs `rate` runs a second for `seconds`, in ticks of TICK_MS; resolves with the runs made. */
async function drive(tracer: ServiceTracer, rate: number, seconds: number): Promise<number> {
  const perTick = Math.max(1, Math.round((rate * TICK_MS) / 1000));
  const ticks = Math.round((seconds * 1000) / TICK_MS);
  let made = 0;
  const started = performance.now();
  for (let tick = 0; tick < ticks; tick++) {
    for (let i = 0; i < perTick; i++) traceOneRun(tracer, made++);
    const due = started + (tick + 1) * TICK_MS;
    const wait = due - performance.now();
    await new Promise((resolve) => (wait > 0 ? setTimeout(resolve, wait) : setImmediate(resolve)));
  }
  return made;
}

interface Figures {
  runs: number;
  mainUsPerRun: number;
  processUsPerRun: number;
}

async function measure(name: string, options: Options, receiverUrl: string): Promise<Figures> {
  let pipeline: Pipeline;
  if (name === 'off') pipeline = { tracer: noopServiceTracer, stop: async () => {} };
  else if (name === 'discard') pipeline = await providerPipeline(() => {});
  else if (name === 'json') pipeline = await providerPipeline((spans) => void JsonTraceSerializer.serializeRequest(spans));
  else if (name === 'proto') pipeline = await providerPipeline((spans) => void ProtobufTraceSerializer.serializeRequest(spans));
  else if (name === 'service') pipeline = await servicePipeline(receiverUrl, 'http/json');
  else if (name === 'service-proto') pipeline = await servicePipeline(receiverUrl, 'http/protobuf');
  else throw new Error(`unknown pipeline ${name}`);
  // Warm-up: compiled code and a settled heap before the measured part.
  await drive(pipeline.tracer, options.rate, 1);
  const mainBefore = mainThreadCpuMs();
  const processBefore = processCpuMs();
  const runs = await drive(pipeline.tracer, options.rate, options.seconds);
  const mainMs = mainThreadCpuMs() - mainBefore;
  const processMs = processCpuMs() - processBefore;
  await pipeline.stop();
  return { runs, mainUsPerRun: (mainMs * 1000) / runs, processUsPerRun: (processMs * 1000) / runs };
}

/** One pipeline in a process of its own: none inherits another's compiled code or heap. */
function measureInChild(name: string, options: Options): Figures {
  const args = ['--import', 'tsx', import.meta.filename, '--child', name, '--rate', String(options.rate), '--seconds', String(options.seconds)];
  const out = execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1)!) as Figures;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const options = parseArgs(process.argv.slice(2));
if (options.child !== null) {
  const receiver = await startReceiverThread();
  try {
    const figures = await measure(options.child, options, receiver.url);
    if (options.child === 'service' && (await receiver.bodies()) === 0) throw new Error('the receiver got no export');
    console.log(JSON.stringify(figures));
  } finally {
    await receiver.stop();
  }
} else {
  console.log(`${options.rate} runs/s for ${options.seconds} s, five spans a run; ${options.repeat} rounds, pipelines alternating, each in its own process`);
  const results = new Map<string, Figures[]>(options.pipelines.map((name) => [name, []]));
  for (let round = 0; round < options.repeat; round++) {
    for (const name of options.pipelines) results.get(name)!.push(measureInChild(name, options));
  }
  const fmt = (v: number) => v.toFixed(1).padStart(6);
  console.log('pipeline  main thread µs/run (median; min-max)   process µs/run (median)');
  for (const [name, figures] of results) {
    const main = figures.map((f) => f.mainUsPerRun);
    console.log(`${name.padEnd(8)}  ${fmt(median(main))} (${fmt(Math.min(...main))} - ${fmt(Math.max(...main))})         ${fmt(median(figures.map((f) => f.processUsPerRun)))}`);
  }
}
