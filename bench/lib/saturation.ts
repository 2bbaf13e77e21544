import type { OpenLoopResult } from './open-loop.js';

export interface SweepOptions {
  /** The fixed-rate open loop already measured: the sweep's first step. */
  first: OpenLoopResult;
  /** Each step's rate is the previous one's times this (up) or divided by it (down). */
  factor: number;
  stepSec: number;
  /** Steps after the first. */
  maxSteps: number;
  /** Whole sweep, first step excluded: no step starts unless it can end (drain included) within it. */
  maxMs: number;
  /** A step passes when every request was answered 2xx and its p99 is at most this. */
  p99BoundMs: number;
  /** How long a step waits for its last answers before counting the rest as unanswered. */
  drainMs: number;
  /** Runs one open-loop step. */
  step: (ratePerSec: number, durationSec: number, drainMs: number) => Promise<OpenLoopResult>;
}

export interface SweepResult {
  /** Highest rate whose step passed; null when none did. */
  saturationPerSec: number | null;
  /** `up` from a passing first step, `down` from a failing one. */
  direction: 'up' | 'down';
  /** Why the sweep ended. */
  stoppedBy: 'step failed' | 'step passed' | 'step cap' | 'time cap';
  /** Every step in order, the first (fixed-rate) one included. */
  steps: OpenLoopResult[];
}

/** Every arrival answered with a 2xx and the p99 within the bound. */
export function stepPassed(r: OpenLoopResult, p99BoundMs: number): boolean {
  return r.sent > 0 && r.ok2xx === r.sent && r.errors === 0 && r.timedOut === 0 && r.latencyMs.p99 <= p99BoundMs;
}

/**
 * The open-loop saturation point: from the fixed rate, the arrival rate steps up by `factor` until
 * a step fails (or the step or time cap ends the sweep); the point is the highest rate that passed.
 * When the fixed rate itself fails, the rate steps down instead until a step passes. Up-steps stop
 * at the first failure, so a saturated step's backlog never spills into a step that is counted.
 */
export async function sweepSaturation(options: SweepOptions): Promise<SweepResult> {
  const steps = [options.first];
  const up = stepPassed(options.first, options.p99BoundMs);
  let saturation: number | null = up ? options.first.ratePerSec : null;
  let rate = options.first.ratePerSec;
  const started = Date.now();
  const stepCostMs = options.stepSec * 1000 + options.drainMs;
  for (let i = 0; i < options.maxSteps; i++) {
    if (Date.now() - started + stepCostMs > options.maxMs) return { saturationPerSec: saturation, direction: up ? 'up' : 'down', stoppedBy: 'time cap', steps };
    rate = Math.max(1, Math.round(up ? rate * options.factor : rate / options.factor));
    const result = await options.step(rate, options.stepSec, options.drainMs);
    steps.push(result);
    const passed = stepPassed(result, options.p99BoundMs);
    if (up && !passed) return { saturationPerSec: saturation, direction: 'up', stoppedBy: 'step failed', steps };
    if (passed) saturation = rate;
    if (!up && passed) return { saturationPerSec: saturation, direction: 'down', stoppedBy: 'step passed', steps };
  }
  return { saturationPerSec: saturation, direction: up ? 'up' : 'down', stoppedBy: 'step cap', steps };
}

/** One line for the row's note: each step's rate, verdict and p99. */
export function describeSweep(sweep: SweepResult, p99BoundMs: number): string {
  const steps = sweep.steps.map((r) => {
    const problems: string[] = [];
    if (r.timedOut) problems.push(`${r.timedOut} unanswered`);
    if (r.errors) problems.push(`${r.errors} errors`);
    const non2xx = r.sent - r.ok2xx - r.errors - r.timedOut;
    if (non2xx > 0) problems.push(`${non2xx} non-2xx`);
    const p99 = Number.isFinite(r.latencyMs.p99) ? `p99 ${r.latencyMs.p99.toFixed(r.latencyMs.p99 < 10 ? 1 : 0)} ms` : 'no answers';
    return `${r.ratePerSec}/s ${stepPassed(r, p99BoundMs) ? 'ok' : 'FAIL'} (${[p99, ...problems].join(', ')})`;
  });
  return `pass = every arrival answered 2xx and p99 <= ${p99BoundMs} ms; steps ${steps.join(' -> ')}; ended: ${sweep.stoppedBy}`;
}
