/**
 * The flows scenario's shapes and the pure parts of its self-checks and latencies: which steps a
 * handler log shows executed other than once, and how long a dependent waited after its last
 * dependency ended. Shared by the service's rows and the BullMQ flows peer's; no I/O, so it is
 * unit-tested on its own (test/bench/flow-checks.test.ts).
 */

/** A step of a bench flow: its key and the keys it waits for. */
export interface ShapeStep {
  key: string;
  dependsOn: string[];
}

/** The fan-out/fan-in: `root`, then `steps - 2` middle steps after it, then `join` after all of them. */
export function fanOutFanIn(steps: number): ShapeStep[] {
  if (!Number.isInteger(steps) || steps < 3) throw new Error(`a fan-out/fan-in needs at least 3 steps, not ${steps}`);
  const middle = Array.from({ length: steps - 2 }, (_, i) => ({ key: `m${i}`, dependsOn: ['root'] }));
  return [{ key: 'root', dependsOn: [] }, ...middle, { key: 'join', dependsOn: middle.map((s) => s.key) }];
}

/** `width` wide and `depth` deep: each step after the step of the layer before at its place and the next one (wrapping). */
export function grid(width: number, depth: number): ShapeStep[] {
  if (!Number.isInteger(width) || !Number.isInteger(depth) || width < 1 || depth < 1) throw new Error(`a grid needs a width and a depth of at least 1, not ${width} x ${depth}`);
  const key = (layer: number, i: number) => `l${layer}-${i}`;
  const steps: ShapeStep[] = [];
  for (let layer = 0; layer < depth; layer++) {
    for (let i = 0; i < width; i++) {
      steps.push({ key: key(layer, i), dependsOn: layer === 0 ? [] : [...new Set([key(layer - 1, i), key(layer - 1, (i + 1) % width)])] });
    }
  }
  return steps;
}

export interface ExecutionCount {
  /** Ids executed exactly once. */
  once: number;
  /** Expected ids the log never shows. */
  missing: string[];
  /** Expected ids executed more than once, with their count. */
  repeated: Array<{ id: string; times: number }>;
  /** Ids under the same prefix the log shows that were never expected (a step that does not exist ran). */
  stray: string[];
}

/**
 * Compares a handler's execution log (executions per id) with the ids that must each run exactly
 * once. Ids of the log outside `prefix` belong to other work of the same process and are ignored.
 */
export function countExecutions(log: Readonly<Record<string, number>>, expected: readonly string[], prefix: string): ExecutionCount {
  const want = new Set(expected);
  const out: ExecutionCount = { once: 0, missing: [], repeated: [], stray: [] };
  for (const id of want) {
    const times = log[id] ?? 0;
    if (times === 0) out.missing.push(id);
    else if (times === 1) out.once++;
    else out.repeated.push({ id, times });
  }
  for (const id of Object.keys(log)) if (id.startsWith(prefix) && !want.has(id)) out.stray.push(id);
  return out;
}

export function exactlyOnce(count: ExecutionCount): boolean {
  return count.missing.length === 0 && count.repeated.length === 0 && count.stray.length === 0;
}

/** One line for a check's note: `1000 of 1000 once` or what went wrong, a few ids named. */
export function describeExecutions(count: ExecutionCount, expected: number): string {
  const some = (ids: string[]) => `${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ', ...' : ''}`;
  const parts = [`${count.once} of ${expected} executed once`];
  if (count.missing.length) parts.push(`${count.missing.length} never (${some(count.missing)})`);
  if (count.repeated.length) parts.push(`${count.repeated.length} more than once (${some(count.repeated.map((r) => `${r.id} x${r.times}`))})`);
  if (count.stray.length) parts.push(`${count.stray.length} not in the flow (${some(count.stray)})`);
  return parts.join(', ');
}

/**
 * For each step with dependencies: ms from its last dependency's end to `at(step)` (its
 * promotion, or its start). Steps lacking a time on either side are left out and counted.
 */
export function dependencyLatencies(
  steps: readonly ShapeStep[],
  endedAt: (key: string) => number | null,
  at: (key: string) => number | null,
): { latencies: number[]; unmeasured: number } {
  const latencies: number[] = [];
  let unmeasured = 0;
  for (const step of steps) {
    if (step.dependsOn.length === 0) continue;
    const ends = step.dependsOn.map(endedAt);
    const t = at(step.key);
    if (t === null || ends.some((e) => e === null)) {
      unmeasured++;
      continue;
    }
    latencies.push(t - Math.max(...(ends as number[])));
  }
  return { latencies, unmeasured };
}

/** An ISO timestamp (or epoch ms) as epoch ms; null when absent or unreadable. */
export function epochMs(value: string | number | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  const ms = typeof value === 'number' ? value : Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}
