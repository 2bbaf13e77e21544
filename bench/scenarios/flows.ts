/**
 * Flows: a fan-out/fan-in (a root, the middle steps after it, one join after all of them) and a
 * grid (`width` wide, `depth` deep, each step after two of the layer before), 1,000 steps each at
 * full size, on one service with the JSON file store. Each step is `doc-sync` against an empty
 * docs folder (the service's cheapest in-process work, the e2e scenario's), so the peers' no-op
 * handlers do the same work. In alternated rounds (A,B,C,A,B,C):
 *  - the flow, from its POST to its end seen;
 *  - the same number of runs of the same work triggered as independent runs, from the first
 *    trigger to the last success seen (goal: flow >= 0.8x their throughput);
 *  - the fan-out/fan-in as BullMQ flows on a Redis of the bench's own with `appendfsync always`
 *    (bench/peers/bullmq-flows.ts), from adding the root to the join's completion: the peer row.
 * Promotion latency (a step's last dependency finished to its `dependencies-ended` event; goal
 * p99 <= 50 ms) and the start latency (to the step's start; BullMQ's too) per round; the
 * service's RSS afterwards. Self-checks, every round: every flow ends `success` with every step
 * `success`; every step and every independent run executed exactly once by the handler's own
 * log (bench/lib/handler-log.ts), BullMQ's by its worker's count; every dependent promoted
 * exactly once (one `dependencies-ended` event).
 */
import { benchFault } from '../lib/fault.js';
import { countExecutions, dependencyLatencies, describeExecutions, epochMs, exactlyOnce, fanOutFanIn, grid, type ExecutionCount, type ShapeStep } from '../lib/flow-checks.js';
import { handlerLog, type HandlerLog } from '../lib/handler-log.js';
import { requestJson } from '../lib/http.js';
import { redisServerBinary, startDurableRedis, type OwnRedis } from '../lib/redis-server.js';
import type { Scenario, ScenarioContext } from '../lib/scenario.js';
import { launchService, makeBaseDir, OPERATOR_KEY, runsTotal, serviceAvailable, SKIP_SERVICE_REASON, trigger, VIEWER_KEY, type BenchService } from '../lib/service.js';
import { percentile } from '../lib/stats.js';
import { median } from '../lib/verdict.js';
import { errorMessage, rssMiB, runPool, waitFor } from '../lib/util.js';
import { bullmqStepKey, startBullmqFlows, type BullmqFlowsPeer } from '../peers/bullmq-flows.js';
import { redisDurability } from '../peers/bullmq.js';

const TYPE = 'doc-sync';
const BULLMQ = 'bullmq flows (aof always)';
const DURABILITY = 'every step run fdatasynced before 202 and at every transition (json file)';
/** How often the bench looks for a flow's end or the independent runs' last success (both alike). */
const POLL_MS = 20;
/** Steps of the warm-up flow (and runs of the warm-up batch) before the first timed round. */
const WARMUP_STEPS = 30;

interface Shape {
  /** In comparison ids: `flows/<id>/...`. */
  id: 'fan-out' | 'grid';
  flow: string;
  independent: string;
  steps: ShapeStep[];
  bullmq: boolean;
}

interface StepView {
  key: string;
  runId: string | null;
  state: string;
  startedAt: string | null;
  finishedAt: string | null;
}
interface FlowView {
  status: string;
  steps: StepView[];
}

/** One timed round of one side; `ms` null when it did not end or its work was wrong (`problems` says why). */
interface Round {
  ms: number | null;
  /** Why the round did not end as it should (refused, timed out, a step not success); null when it did. */
  end: string | null;
  executions: ExecutionCount | null;
  promotion: number[];
  start: number[];
  promotedTwice: number;
  notPromoted: number;
}

const emptyRound = (): Round => ({ ms: null, end: null, executions: null, promotion: [], start: [], promotedTwice: 0, notPromoted: 0 });

const executionProblem = (r: Round) => (r.executions === null ? 'not counted' : exactlyOnce(r.executions) ? null : describeExecutions(r.executions, r.executions.once + r.executions.missing.length + r.executions.repeated.length));
const promotionProblem = (r: Round) => (r.notPromoted || r.promotedTwice ? `${r.notPromoted} dependents without a dependencies-ended event, ${r.promotedTwice} with more than one` : null);
/** Everything wrong with a round; empty when its time counts. */
const problems = (r: Round) => [r.end, executionProblem(r), promotionProblem(r)].filter((x): x is string => x !== null);
const stepRunId = (flowId: string, key: string) => `flow:${flowId}:${key}`;

/** Admits the flow and waits for its end: ms from the request to the end seen (polling the cheap flow list), then its full view. */
async function timeFlow(service: BenchService, flowId: string, steps: ShapeStep[], timeoutMs: number): Promise<{ ms: number | null; view: FlowView | null; problem: string | null }> {
  const body = { id: flowId, steps: steps.map((s) => ({ key: s.key, type: TYPE, payload: {}, ...(s.dependsOn.length ? { dependsOn: s.dependsOn } : {}) })) };
  const t0 = performance.now();
  const admitted = await requestJson(`${service.url}/api/flows`, { method: 'POST', key: OPERATOR_KEY, body, timeoutMs });
  if (admitted.status !== 202) return { ms: null, view: null, problem: `POST /api/flows answered ${admitted.status}: ${JSON.stringify(admitted.body).slice(0, 200)}` };
  const ended = await waitFor(
    async () => {
      const res = await requestJson<{ items: Array<{ flowId: string; status: string }> }>(`${service.url}/api/flows?limit=500`, { key: VIEWER_KEY });
      const mine = res.status === 200 ? res.body.items.find((f) => f.flowId === flowId) : undefined;
      return mine && mine.status !== 'running' ? mine.status : null;
    },
    { timeoutMs, intervalMs: POLL_MS },
  );
  const ms = performance.now() - t0;
  const res = await requestJson<FlowView>(`${service.url}/api/flows/${encodeURIComponent(flowId)}`, { key: VIEWER_KEY, timeoutMs: 30_000 });
  const view = res.status === 200 ? res.body : null;
  if (ended === null) return { ms: null, view, problem: `did not end in ${Math.round(timeoutMs / 1000)} s` };
  return { ms, view, problem: null };
}

/** One round of the flow: timed, then checked (end state, handler log, promotions) and its latencies read. */
async function flowRound(service: BenchService, log: HandlerLog, steps: ShapeStep[], flowId: string, timeoutMs: number, fault = false): Promise<Round> {
  const round = emptyRound();
  const timed = await timeFlow(service, flowId, steps, timeoutMs);
  // BENCH_FAULT=flow-step-twice: one step as if its handler had run it a second time.
  if (fault) log.forge(stepRunId(flowId, steps.at(-1)!.key));
  const view = timed.view;
  const success = view ? view.steps.filter((s) => s.state === 'success').length : 0;
  if (timed.problem) round.end = timed.problem;
  else if (!view) round.end = 'GET /api/flows/:id did not answer its view';
  else if (view.status !== 'success' || success !== steps.length) round.end = `flow ${view.status}, ${success} of ${steps.length} steps success`;
  round.executions = countExecutions(log.counts(), steps.map((s) => stepRunId(flowId, s.key)), stepRunId(flowId, ''));
  if (view) {
    const byKey = new Map(view.steps.map((s) => [s.key, s]));
    const promotedAt = new Map<string, number | null>();
    await runPool(
      steps.filter((s) => s.dependsOn.length > 0),
      16,
      async (s) => {
        const res = await requestJson<{ events?: Array<{ name: string; at: string }> }>(`${service.url}/api/tasks/runs/${encodeURIComponent(stepRunId(flowId, s.key))}`, { key: VIEWER_KEY });
        const promotions = (res.body.events ?? []).filter((e) => e.name === 'dependencies-ended');
        if (promotions.length === 0) round.notPromoted++;
        if (promotions.length > 1) round.promotedTwice++;
        promotedAt.set(s.key, epochMs(promotions[0]?.at));
      },
    );
    const endedAt = (key: string) => epochMs(byKey.get(key)?.finishedAt);
    round.promotion = dependencyLatencies(steps, endedAt, (key) => promotedAt.get(key) ?? null).latencies;
    round.start = dependencyLatencies(steps, endedAt, (key) => epochMs(byKey.get(key)?.startedAt)).latencies;
  }
  if (problems(round).length === 0) round.ms = timed.ms;
  return round;
}

/** The same number of runs of the same work triggered as independent runs: ms until every one succeeded, checked by the handler log. */
async function independentRound(service: BenchService, log: HandlerLog, count: number, prefix: string, submitConcurrency: number, timeoutMs: number): Promise<Round> {
  const round = emptyRound();
  const keys = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  const before = await runsTotal(service.url, { type: TYPE, status: 'success' });
  const t0 = performance.now();
  const refused: number[] = [];
  await runPool(keys, submitConcurrency, async (key) => {
    const res = await trigger(service.url, TYPE, { idempotencyKey: key });
    if (res.code !== 202) refused.push(res.code);
  });
  const done = await waitFor(async () => ((await runsTotal(service.url, { type: TYPE, status: 'success' })) - before >= count ? true : null), { timeoutMs, intervalMs: POLL_MS });
  const ms = performance.now() - t0;
  if (refused.length) round.end = `${refused.length} triggers not answered 202 (${[...new Set(refused)].join(', ')})`;
  else if (!done) round.end = `not every run succeeded in ${Math.round(timeoutMs / 1000)} s`;
  round.executions = countExecutions(log.counts(), keys, `${prefix}-`);
  if (problems(round).length === 0) round.ms = ms;
  return round;
}

/** One BullMQ round of the fan-out/fan-in, checked by its worker's count, with BullMQ's start latencies. */
async function bullmqRound(peer: BullmqFlowsPeer, steps: ShapeStep[], tag: string, timeoutMs: number): Promise<Round> {
  const round = emptyRound();
  const result = await peer.round(tag, steps.length, timeoutMs);
  round.end = result.error;
  round.executions = countExecutions(result.counts, steps.map((s) => bullmqStepKey(tag, s.key)), bullmqStepKey(tag, ''));
  const time = (key: string) => result.times[bullmqStepKey(tag, key)];
  round.start = dependencyLatencies(steps, (key) => time(key)?.finishedAt ?? null, (key) => time(key)?.startedAt ?? null).latencies;
  if (problems(round).length === 0) round.ms = result.ms;
  return round;
}

const stepsPerSec = (steps: number, ms: number | null) => (ms === null || ms <= 0 ? null : steps / (ms / 1000));
const best = (values: (number | null)[]) => {
  const seen = values.filter((v): v is number => v !== null);
  return seen.length ? Math.max(...seen) : null;
};
const roundsNote = (rounds: Round[]) => `rounds ${rounds.map((r) => (r.ms === null ? 'failed' : `${Math.round(r.ms)} ms`)).join(' / ')}`;
const p = (values: number[], q: number) => (values.length ? percentile(values, q) : null);
const medianOf = (values: (number | null)[]) => median(values.filter((v): v is number => v !== null));

function checkRounds(ctx: ScenarioContext, subject: string, what: string, rounds: Round[], pick: (r: Round) => string | null, okNote: string): void {
  const bad = rounds.map((r, i) => [i, pick(r)] as const).filter(([, problem]) => problem !== null);
  ctx.rows.check(subject, what, bad.length === 0 && rounds.length > 0, bad.length ? bad.map(([i, problem]) => `round ${i + 1}: ${problem}`).join('; ') : rounds.length ? `${rounds.length} rounds, ${okNote}` : 'no round ran');
}

async function measureShape(ctx: ScenarioContext, shape: Shape, peer: BullmqFlowsPeer | null, bullmqDurability: string): Promise<void> {
  const { rows, details } = ctx;
  const s = ctx.settings.flows;
  const n = shape.steps.length;
  const scratch = makeBaseDir('orch-bench-flowlog-');
  const log = handlerLog(scratch.dir);
  const service = await launchService({ store: 'json', config: { concurrency: s.concurrency, runRetention: Math.max(10_000, n * (s.rounds + 1) * 3) }, env: log.env });
  const tag = `${shape.id}-${process.pid}-${Date.now().toString(36)}`;
  const flowRounds: Round[] = [];
  const independentRounds: Round[] = [];
  const bullmqRounds: Round[] = [];
  try {
    // Warm-up, not timed: a small flow, a batch of runs and a BullMQ round, so no side pays for compiling its code.
    const warm = shape.id === 'grid' ? grid(Math.min(3, n), Math.max(1, Math.floor(WARMUP_STEPS / 3))) : fanOutFanIn(WARMUP_STEPS);
    const warmFlow = await flowRound(service, log, warm, `${tag}-warm`, 30_000);
    const warmRuns = await independentRound(service, log, WARMUP_STEPS, `${tag}-warm-runs`, s.submitConcurrency, 30_000);
    const warmBullmq = peer ? await bullmqRound(peer, fanOutFanIn(WARMUP_STEPS), `${tag}-warm`, 30_000) : null;
    const warmProblems = [warmFlow, warmRuns, ...(warmBullmq ? [warmBullmq] : [])].flatMap(problems);
    if (warmProblems.length) ctx.log(`warm-up: ${warmProblems.join('; ')}`);

    const sides = peer ? 3 : 2;
    for (let r = 0; r < s.rounds; r++) {
      // Each side's time cap: what is left shared among the side runs still to come (at least 20 s).
      const cap = () => Math.max(20_000, ctx.remainingMs() / Math.max(1, (s.rounds - r) * sides));
      if (ctx.remainingMs() < 5_000) {
        ctx.log(`${shape.id}: time budget spent after ${r} rounds`);
        break;
      }
      flowRounds.push(await flowRound(service, log, shape.steps, `${tag}-r${r}`, cap(), benchFault() === 'flow-step-twice'));
      independentRounds.push(await independentRound(service, log, n, `${tag}-r${r}-runs`, s.submitConcurrency, cap()));
      if (peer) bullmqRounds.push(await bullmqRound(peer, shape.steps, `${tag}-r${r}`, cap()));
      ctx.log(`${shape.id} round ${r + 1}: flow ${flowRounds.at(-1)!.ms?.toFixed(0) ?? 'failed'} ms, independent ${independentRounds.at(-1)!.ms?.toFixed(0) ?? 'failed'} ms${peer ? `, bullmq ${bullmqRounds.at(-1)!.ms?.toFixed(0) ?? 'failed'} ms` : ''}`);
    }
    const rss = rssMiB(service.pid);

    // Self-checks, every round.
    checkRounds(ctx, shape.flow, 'every flow ends success, every step success', flowRounds, (r) => r.end, `${n} steps each`);
    checkRounds(ctx, shape.flow, 'every step executed exactly once (handler log)', flowRounds, executionProblem, `${n} of ${n} once each`);
    checkRounds(ctx, shape.flow, 'every dependent promoted exactly once', flowRounds, promotionProblem, 'one dependencies-ended event each');
    const all = (r: Round) => (problems(r).length ? problems(r).join(', ') : null);
    checkRounds(ctx, shape.independent, 'every run succeeds, executed exactly once (handler log)', independentRounds, all, `${n} of ${n} once each`);
    if (peer) checkRounds(ctx, BULLMQ, 'every join completes, every step executed exactly once (worker count)', bullmqRounds, all, `${n} of ${n} once each`);

    // The compared pairs, every round (a failed round has no figure).
    const flowRate = flowRounds.map((r) => stepsPerSec(n, r.ms));
    const independentRate = independentRounds.map((r) => stepsPerSec(n, r.ms));
    const bullmqRate = bullmqRounds.map((r) => stepsPerSec(n, r.ms));
    const promotionP99 = flowRounds.map((r) => p(r.promotion, 99));
    rows.compare({ id: `flows/${shape.id}/independent`, subject: shape.flow, baseline: shape.independent, metric: 'steps/s', unit: '', better: 'higher', rounds: flowRate.map((value, i) => ({ value, baseline: independentRate[i] ?? null })) });
    rows.compare({ id: `flows/${shape.id}/promotion p99`, subject: shape.flow, baseline: '', metric: 'promotion p99', unit: 'ms', better: 'lower', rounds: promotionP99.map((value) => ({ value, baseline: 1 })) });
    if (peer) rows.compare({ id: `flows/${shape.id}/${BULLMQ}`, subject: shape.flow, baseline: BULLMQ, metric: 'steps/s', unit: '', better: 'higher', rounds: flowRate.map((value, i) => ({ value, baseline: bullmqRate[i] ?? null })) });

    // Rows: each side's best round, then the medians of rounds.
    rows.add({ subject: shape.flow, metric: 'steps/s vs independent runs', unit: 'steps/s', value: best(flowRate), better: 'higher', durability: DURABILITY, baseline: { subject: shape.independent, value: best(independentRate) }, note: `${n} steps, best of ${flowRounds.length} rounds; flow ${roundsNote(flowRounds)}; independent ${roundsNote(independentRounds)}` });
    if (peer) {
      rows.add({ subject: BULLMQ, metric: 'steps/s', unit: 'steps/s', value: best(bullmqRate), better: 'higher', durability: bullmqDurability, note: `root, then join + ${n - 2} children by FlowProducer; best of ${bullmqRounds.length}; ${roundsNote(bullmqRounds)}` });
      const ratios = flowRate.map((v, i) => (v !== null && bullmqRate[i] ? v / bullmqRate[i]! : null)).filter((v): v is number => v !== null);
      rows.add({ subject: shape.flow, metric: 'steps/s vs bullmq flows', unit: 'steps/s', value: best(flowRate), better: 'higher', baseline: { subject: BULLMQ, value: best(bullmqRate) }, note: ratios.length ? `median of rounds ${medianOf(ratios)!.toFixed(2)}x, rounds ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}x` : 'no paired round' });
    }
    rows.add({ subject: shape.flow, metric: 'promotion p50 (median of rounds)', unit: 'ms', value: medianOf(flowRounds.map((r) => p(r.promotion, 50))), better: 'lower', note: 'last dependency finished to dependencies-ended' });
    rows.add({ subject: shape.flow, metric: 'promotion p99 (median of rounds)', unit: 'ms', value: medianOf(promotionP99), better: 'lower', note: `rounds ${promotionP99.map((v) => (v === null ? '-' : Math.round(v))).join(' / ')} ms` });
    const startP99 = medianOf(flowRounds.map((r) => p(r.start, 99)));
    const bullmqStartP99 = medianOf(bullmqRounds.map((r) => p(r.start, 99)));
    rows.add({ subject: shape.flow, metric: 'dependency end to start p99 (median of rounds)', unit: 'ms', value: startP99, better: 'lower', ...(peer ? { baseline: { subject: BULLMQ, value: bullmqStartP99 } } : {}), note: 'last dependency finished to the step started' });
    if (rss !== null) rows.add({ subject: shape.flow, metric: 'service RSS after', unit: 'MiB', value: rss, better: 'lower' });
    details[shape.id] = {
      steps: n,
      flowMs: flowRounds.map((r) => r.ms),
      independentMs: independentRounds.map((r) => r.ms),
      bullmqMs: bullmqRounds.map((r) => r.ms),
      promotionP50: flowRounds.map((r) => p(r.promotion, 50)),
      promotionP99,
      startP99: flowRounds.map((r) => p(r.start, 99)),
      bullmqStartP99: bullmqRounds.map((r) => p(r.start, 99)),
      problems: { flow: flowRounds.map(problems), independent: independentRounds.map(problems), bullmq: bullmqRounds.map(problems) },
      rssMiB: rss,
    };
  } finally {
    await service.stop();
    await scratch.remove();
  }
}

export const flows: Scenario = {
  name: 'flows',
  title: 'Flows: fan-out/fan-in and a grid against the same work as independent runs and BullMQ flows; promotion latency',
  async run(ctx) {
    const { fanOutSteps, width, depth, concurrency } = ctx.settings.flows;
    const shapes: Shape[] = [
      { id: 'fan-out', flow: `flow fan-out/fan-in (${fanOutSteps} steps, json file)`, independent: `independent runs (the fan-out's ${fanOutSteps})`, steps: fanOutFanIn(fanOutSteps), bullmq: true },
      { id: 'grid', flow: `flow grid ${width} wide x ${depth} deep (json file)`, independent: `independent runs (the grid's ${width * depth})`, steps: grid(width, depth), bullmq: false },
    ];
    if (!serviceAvailable()) {
      for (const shape of shapes) ctx.rows.skip(shape.flow, 'steps/s', SKIP_SERVICE_REASON);
      return;
    }
    let redis: OwnRedis | null = null;
    let peer: BullmqFlowsPeer | null = null;
    let durability = '';
    const binary = redisServerBinary();
    if (!binary) ctx.rows.skip(BULLMQ, 'steps/s', 'redis-server not on PATH');
    else {
      try {
        redis = await startDurableRedis(binary);
        durability = await redisDurability(redis.url);
        peer = await startBullmqFlows({ redisUrl: redis.url, concurrency, name: 'fan-out' });
      } catch (err) {
        ctx.rows.skip(BULLMQ, 'steps/s', `could not start: ${errorMessage(err)}`);
      }
    }
    try {
      for (const shape of shapes) await measureShape(ctx, shape, shape.bullmq ? peer : null, durability);
    } finally {
      await peer?.stop();
      await redis?.stop();
    }
  },
};
