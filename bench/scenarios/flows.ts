/**
 * Flows: a fan-out/fan-in flow (a root, the middle steps, one join) and a grid (`width` wide,
 * `depth` deep, each step after two of the layer before), against the same number of runs of the
 * same work triggered as independent runs: total time (the ratio is flow throughput over
 * independent throughput; goal >= 0.8x), promotion latency (a step's last dependency finished to
 * its `dependencies-ended` event; goal p99 <= 50 ms on one instance with the file store, judged
 * on the fan-out) and the service's memory afterwards. The work is the stand-in summarize worker.
 * Self-checks: every flow ends `success`, every independent run finishes.
 */
import { STAND_IN_AGENTS_DIR } from '../../test/support/paths.js';
import { requestJson } from '../lib/http.js';
import type { Scenario, ScenarioContext } from '../lib/scenario.js';
import { launchService, OPERATOR_KEY, serviceAvailable, SKIP_SERVICE_REASON, trigger, unfinishedRuns, VIEWER_KEY, type BenchService } from '../lib/service.js';
import { summarize } from '../lib/stats.js';
import { rssMiB, runPool, waitFor } from '../lib/util.js';

const PROMOTION_BOUND_MS = 50;
const RATIO_GOAL = 0.8;

interface FlowStep {
  key: string;
  type: string;
  payload: Record<string, unknown>;
  dependsOn: string[];
}
interface StepView {
  key: string;
  runId: string | null;
  dependsOn: string[];
  state: string;
  finishedAt: string | null;
}

const step = (key: string, dependsOn: string[]): FlowStep => ({ key, type: 'summarize-content', payload: { content: `bench ${key}` }, dependsOn });

function fanOutFanIn(steps: number): FlowStep[] {
  const middle = Array.from({ length: steps - 2 }, (_, i) => step(`m${i}`, ['root']));
  return [step('root', []), ...middle, step('join', middle.map((s) => s.key))];
}

function grid(width: number, depth: number): FlowStep[] {
  const key = (layer: number, i: number) => `l${layer}-${i}`;
  const steps: FlowStep[] = [];
  for (let layer = 0; layer < depth; layer++) {
    for (let i = 0; i < width; i++) steps.push(step(key(layer, i), layer === 0 ? [] : [...new Set([key(layer - 1, i), key(layer - 1, (i + 1) % width)])]));
  }
  return steps;
}

/** Admits the flow and waits for its end: ms from the request to the end seen, and its final view. */
async function runFlow(service: BenchService, flowId: string, steps: FlowStep[], timeoutMs: number) {
  const t0 = performance.now();
  const admitted = await requestJson(`${service.url}/api/flows`, { method: 'POST', key: OPERATOR_KEY, body: { id: flowId, steps } });
  if (admitted.status !== 202) throw new Error(`POST /api/flows answered ${admitted.status}`);
  const view = await waitFor(
    async () => {
      const res = await requestJson<{ status: string; steps: StepView[] }>(`${service.url}/api/flows/${flowId}`, { key: VIEWER_KEY });
      return res.status === 200 && res.body.status !== 'running' ? res.body : null;
    },
    { timeoutMs, intervalMs: 25 },
  );
  return { ms: performance.now() - t0, view };
}

/** The same number of runs of the same work, triggered at once as independent runs: ms until every one finished. */
async function runIndependent(service: BenchService, prefix: string, count: number, timeoutMs: number): Promise<number | null> {
  const t0 = performance.now();
  await runPool(Array.from({ length: count }, (_, i) => i), 16, async (i) => {
    const res = await trigger(service.url, 'summarize-content', { content: `bench ${i}`, idempotencyKey: `${prefix}-${i}` });
    if (res.code !== 202) throw new Error(`trigger answered ${res.code}`);
  });
  const done = await waitFor(async () => ((await unfinishedRuns(service.url, 'summarize-content')) === 0 ? true : null), { timeoutMs, intervalMs: 25 });
  return done ? performance.now() - t0 : null;
}

/** Each promoted step's latency: its last dependency's end to its `dependencies-ended` event. */
async function promotionLatencies(service: BenchService, steps: StepView[]): Promise<number[]> {
  const finished = new Map(steps.map((s) => [s.key, s.finishedAt ? Date.parse(s.finishedAt) : NaN]));
  const dependents = steps.filter((s) => s.dependsOn.length > 0 && s.runId !== null);
  const latencies = await runPool(dependents, 16, async (s) => {
    const res = await requestJson<{ events: Array<{ name: string; at: string }> }>(`${service.url}/api/tasks/runs/${encodeURIComponent(s.runId!)}`, { key: VIEWER_KEY });
    const promoted = res.body.events?.find((e) => e.name === 'dependencies-ended');
    const lastDependency = Math.max(...s.dependsOn.map((d) => finished.get(d) ?? NaN));
    return promoted ? Date.parse(promoted.at) - lastDependency : NaN;
  });
  return latencies.filter((ms) => Number.isFinite(ms));
}

async function measureShape(ctx: ScenarioContext, service: BenchService, subject: string, steps: FlowStep[], checkPromotion: boolean): Promise<void> {
  const { rows, details } = ctx;
  const timeoutMs = Math.max(10_000, ctx.remainingMs() / 3);
  const flowId = `bench-${subject.replace(/[^a-z0-9]+/gi, '-')}-${process.pid}`;
  const flow = await runFlow(service, flowId, steps, timeoutMs);
  const ok = flow.view?.status === 'success';
  rows.check(subject, 'the flow ends success', ok, flow.view ? `${flow.view.status}, ${flow.view.steps.filter((s) => s.state === 'success').length} of ${steps.length} steps success` : 'did not end in time');
  if (!flow.view || !ok) return;
  const independentMs = await runIndependent(service, `${flowId}-independent`, steps.length, timeoutMs);
  rows.check(subject, 'the independent runs all finish', independentMs !== null, independentMs === null ? 'did not finish in time' : `${steps.length} runs`);
  rows.add({ subject, metric: 'flow total', unit: 'ms', value: flow.ms, better: 'lower', note: `${steps.length} steps` });
  if (independentMs !== null) {
    rows.add({ subject, metric: 'independent runs total', unit: 'ms', value: independentMs, better: 'lower', note: `${steps.length} runs of the same work` });
    const ratio = independentMs / flow.ms;
    rows.add({ subject, metric: 'throughput ratio (independent time / flow time)', unit: 'x', value: ratio, better: 'higher' });
    rows.check(subject, `ratio >= ${RATIO_GOAL}x`, ratio >= RATIO_GOAL, `${ratio.toFixed(2)}x`);
  }
  const latencies = summarize(await promotionLatencies(service, flow.view.steps));
  details[subject] = { flowMs: flow.ms, independentMs, promotion: latencies };
  rows.add({ subject, metric: 'promotion latency p50', unit: 'ms', value: latencies.p50, better: 'lower' });
  rows.add({ subject, metric: 'promotion latency p99', unit: 'ms', value: latencies.p99, better: 'lower', note: 'last dependency finished to dependencies-ended' });
  if (checkPromotion) rows.check(subject, `promotion p99 <= ${PROMOTION_BOUND_MS} ms`, latencies.p99 <= PROMOTION_BOUND_MS, `p99 ${Math.round(latencies.p99)} ms`);
  const rss = rssMiB(service.pid);
  if (rss !== null) rows.add({ subject, metric: 'service RSS after', unit: 'MiB', value: rss, better: 'lower' });
}

export const flows: Scenario = {
  name: 'flows',
  title: 'Flows: fan-out/fan-in and a grid against the same work as independent runs; promotion latency',
  async run(ctx) {
    const { fanOutSteps, width, depth } = ctx.settings.flows;
    const shapes = [
      { subject: `flow fan-out/fan-in (${fanOutSteps} steps, json file)`, steps: fanOutFanIn(fanOutSteps), checkPromotion: true },
      { subject: `flow grid ${width} wide x ${depth} deep (json file)`, steps: grid(width, depth), checkPromotion: false },
    ];
    if (!serviceAvailable()) {
      for (const shape of shapes) ctx.rows.skip(shape.subject, 'flow total', SKIP_SERVICE_REASON);
      return;
    }
    for (const shape of shapes) {
      const service = await launchService({ store: 'json', config: { agentsDir: STAND_IN_AGENTS_DIR, concurrency: ctx.settings.concurrency } });
      try {
        await measureShape(ctx, service, shape.subject, shape.steps, shape.checkPromotion);
      } finally {
        await service.stop();
      }
    }
  },
};
