/**
 * How deep and how large a JSON value the service takes in. Every JSON body at the edge (the
 * HTTP routes, the alert webhook, the chat bridge, the model channel) and every attempt's result
 * is checked against these before anything else reads it: the code past the edge (the stores'
 * commits, freezing, canonical JSON, the views) walks records recursively, so a value nested a few
 * thousand levels deep would overflow the stack there. No body or result of the service comes
 * near either bound.
 */
export const JSON_BOUNDS = {
  /** Arrays and objects inside each other, the outermost counting as 1. */
  maxDepth: 64,
  /** Values of every kind (arrays, objects, strings, numbers, booleans, null), the outermost included. */
  maxNodes: 100_000,
} as const;

/**
 * An attempt's result is held to the same depth, not to the node count: a worker's result is
 * already bounded in size (its standard output, 8 MiB), and a lane may list many values.
 */
export const RESULT_BOUNDS = { maxDepth: JSON_BOUNDS.maxDepth, maxNodes: Number.POSITIVE_INFINITY } as const;

export interface JsonBounds {
  maxDepth: number;
  maxNodes: number;
}

/** Which bound a value crossed, and a sentence naming it (`what` names the value: "The request body"). */
export interface JsonBoundsProblem {
  bound: 'depth' | 'nodes';
  message: string;
}

/**
 * The first bound `value` crosses, or null when it stays within both. Walks with an explicit
 * stack, never by recursion, so the check itself cannot overflow whatever it is given; it stops
 * as soon as a bound is crossed, so its work is bounded by the bounds, not by the value.
 */
export function jsonBoundsProblem(value: unknown, what: string, bounds: JsonBounds = JSON_BOUNDS): JsonBoundsProblem | null {
  const deeper = (): JsonBoundsProblem => ({ bound: 'depth', message: `${what} nests deeper than ${bounds.maxDepth} levels of arrays and objects` });
  const larger = (): JsonBoundsProblem => ({ bound: 'nodes', message: `${what} holds more than ${bounds.maxNodes} values` });
  if (typeof value !== 'object' || value === null) return null;
  let nodes = 1;
  const pending: Array<{ container: object; depth: number }> = [{ container: value, depth: 1 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const children = Array.isArray(next.container) ? (next.container as unknown[]) : Object.values(next.container);
    for (const child of children) {
      nodes += 1;
      if (nodes > bounds.maxNodes) return larger();
      if (typeof child !== 'object' || child === null) continue;
      if (next.depth + 1 > bounds.maxDepth) return deeper();
      pending.push({ container: child, depth: next.depth + 1 });
    }
  }
  return null;
}

/**
 * `text` parsed as JSON and held to the bounds, or the sentence saying why not (`what` names the
 * text: "The body"). For the bodies read outside Fastify's parser: the alert webhook's (after its
 * signature), the chat bridge's and the model channel's.
 */
export function parseJsonWithinBounds(text: string, what: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: `${what} is not valid JSON` };
  }
  const problem = jsonBoundsProblem(value, what);
  return problem ? { ok: false, problem: problem.message } : { ok: true, value };
}
