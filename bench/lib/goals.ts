/**
 * The speed goals the bench judges, each on one compared pair's alternated rounds
 * (RowSink.compare in the scenarios). A goal whose pair did not run is listed as void.
 */
import type { Comparison, GoalVerdict, Row, ScenarioResult } from './results.js';
import { judge } from './verdict.js';

export interface Goal {
  id: string;
  scenario: string;
  /** The comparison it is judged on. */
  comparison: string;
  /** What is promised, as printed, e.g. `>= 0.5x the no-op ceiling`. */
  goal: string;
  target: number;
  /** The baseline is a ceiling: the service above it voids the verdict. */
  ceiling?: boolean;
}

const NOOP = 'the no-op ceiling';
const DURABLE = 'the durable ceiling';

/** The same goal for the JSON file store and the SQLite store (comparison ids `<scenario>/<store>/<pair>`). */
function perStore(scenario: string, name: string, pair: string, rest: Pick<Goal, 'goal' | 'target' | 'ceiling'>): Goal[] {
  return (['json', 'sqlite'] as const).map((store) => ({ id: `${name.replace('<store>', store)}`, scenario, comparison: `${scenario}/${store}${pair ? `/${pair}` : ''}`, ...rest }));
}

export const GOALS: Goal[] = [
  ...perStore('admission', 'admission <store> vs no-op', 'no-op', { goal: `>= 0.5x ${NOOP}`, target: 0.5, ceiling: true }),
  ...perStore('admission', 'admission <store> vs durable', 'durable', { goal: `>= 0.8x ${DURABLE}`, target: 0.8, ceiling: true }),
  ...perStore('admission', 'admission <store> p99', 'p99', { goal: 'closed-loop p99 <= 20 ms', target: 20 }),
  ...perStore('health', 'health <store>', '', { goal: '>= 0.9x bare Fastify (same bytes)', target: 0.9, ceiling: true }),
  ...perStore('e2e', 'e2e <store> vs pg-boss', 'pg-boss', { goal: '>= 1.0x pg-boss', target: 1 }),
  ...perStore('e2e', 'e2e <store> vs durable bullmq', 'bullmq (aof always)', { goal: '>= 1.0x BullMQ (appendfsync always)', target: 1 }),
  ...perStore('reads', 'reads <store> cached list', 'cached list', { goal: '>= 0.8x the same bytes from memory', target: 0.8, ceiling: true }),
  ...perStore('startup', 'start-up <store>', 'empty', { goal: 'start to healthy <= 1,000 ms (empty state)', target: 1000 }),
  { id: 'spawn p50', scenario: 'spawn', comparison: 'spawn/p50', goal: 'p50 <= 1.2x a bare spawn', target: 1.2 },
  { id: 'tracing on vs off', scenario: 'tracing', comparison: 'tracing/on-off', goal: 'tracing on >= 0.8x off', target: 0.8 },
  { id: 'postgres one instance vs pg-boss', scenario: 'postgres', comparison: 'postgres/one/pg-boss', goal: '>= 1.0x pg-boss', target: 1 },
  { id: 'postgres three vs one instance', scenario: 'postgres', comparison: 'postgres/three-one/cpu per run', goal: 'CPU per run <= 1.25x one instance', target: 1.25 },
  { id: 'postgres admission', scenario: 'postgres', comparison: 'postgres/admission', goal: '>= 0.5x the PostgreSQL ceiling', target: 0.5, ceiling: true },
  { id: 'fanout p99', scenario: 'fanout', comparison: 'fanout/p99', goal: 'p99 <= 2x bare node:http', target: 2 },
  { id: 'fanout admission', scenario: 'fanout', comparison: 'fanout/admission', goal: 'with 1,000 subscribers >= 0.8x without', target: 0.8 },
  ...(['fan-out', 'grid'] as const).flatMap((shape): Goal[] => [
    { id: `flows ${shape} vs independent runs`, scenario: 'flows', comparison: `flows/${shape}/independent`, goal: '>= 0.8x the same work as independent runs', target: 0.8 },
    { id: `flows ${shape} promotion p99`, scenario: 'flows', comparison: `flows/${shape}/promotion p99`, goal: 'promotion p99 <= 50 ms (one instance, file store)', target: 50 },
  ]),
  { id: 'fairness light key', scenario: 'fairness', comparison: 'fairness/light p99', goal: "light key's p99 wait beside a flood <= 2x without it (at least one run's slot time)", target: 2 },
  { id: 'fairness overhead', scenario: 'fairness', comparison: 'fairness/overhead', goal: 'keys and buckets on >= 0.9x the same work without', target: 0.9 },
];

function failedSubjects(rows: readonly Row[]): Set<string> {
  return new Set(rows.filter((r) => r.failed).map((r) => r.subject));
}

/** Judges every goal whose scenario ran; a goal of a scenario that ran without its pair is void. */
export function judgeGoals(scenarios: readonly ScenarioResult[]): GoalVerdict[] {
  const out: GoalVerdict[] = [];
  for (const goal of GOALS) {
    const scenario = scenarios.find((s) => s.name === goal.scenario);
    if (!scenario) continue;
    const comparison: Comparison | undefined = (scenario.comparisons ?? []).find((c) => c.id === goal.comparison);
    const head = { id: goal.id, scenario: goal.scenario, goal: goal.goal, comparison: goal.comparison, unit: comparison && !comparison.baseline ? comparison.unit : 'x' };
    if (!comparison) {
      out.push({ ...head, status: 'void', median: null, min: null, max: null, rounds: 0, ratios: [], reasons: ['not measured in this run (not in this mode, skipped, or failed before its rounds)'] });
      continue;
    }
    const failed = failedSubjects(scenario.rows);
    const verdict = judge({
      better: comparison.better,
      target: goal.target,
      rounds: comparison.rounds,
      baselineIsCeiling: goal.ceiling,
      orders: comparison.orders,
      failedChecks: [comparison.subject, comparison.baseline].filter((s) => failed.has(s)),
      absolute: !comparison.baseline,
      unit: head.unit === 'x' ? 'x' : ` ${head.unit}`,
    });
    out.push({ ...head, ...verdict });
  }
  return out;
}
