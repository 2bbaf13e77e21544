/** One node of a flow's graph: a step key and the keys it depends on (all known keys). */
export interface GraphNode {
  key: string;
  dependsOn: readonly string[];
}

export type DependencyOrder = { ok: true; keys: string[] } | { ok: false; cycle: string[] };

/**
 * The keys in an order where each comes after everything it depends on (Kahn's algorithm, ties
 * in the given order), or one cycle of the graph as `a -> b -> ... -> a` when there is none.
 */
export function dependencyOrder(nodes: readonly GraphNode[]): DependencyOrder {
  const remaining = new Map(nodes.map((n) => [n.key, new Set(n.dependsOn)]));
  const dependents = new Map<string, string[]>(nodes.map((n) => [n.key, []]));
  for (const n of nodes) for (const dep of new Set(n.dependsOn)) dependents.get(dep)?.push(n.key);
  const keys: string[] = [];
  const ready = nodes.filter((n) => remaining.get(n.key)!.size === 0).map((n) => n.key);
  for (let i = 0; i < ready.length; i += 1) {
    const key = ready[i]!;
    keys.push(key);
    for (const dependent of dependents.get(key)!) {
      const left = remaining.get(dependent)!;
      left.delete(key);
      if (left.size === 0) ready.push(dependent);
    }
  }
  if (keys.length === nodes.length) return { ok: true, keys };
  return { ok: false, cycle: findCycle(nodes, new Set(keys)) };
}

/** A cycle among the nodes Kahn's algorithm could not order: walk dependencies until one repeats. */
function findCycle(nodes: readonly GraphNode[], ordered: ReadonlySet<string>): string[] {
  const byKey = new Map(nodes.map((n) => [n.key, n]));
  let key = nodes.find((n) => !ordered.has(n.key))!.key;
  const seen: string[] = [];
  while (!seen.includes(key)) {
    seen.push(key);
    key = byKey.get(key)!.dependsOn.find((dep) => !ordered.has(dep))!;
  }
  return [...seen.slice(seen.indexOf(key)), key];
}
