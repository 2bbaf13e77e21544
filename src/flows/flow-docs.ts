import { deepFreeze } from '../store/deep-freeze.js';
import type { StateStore } from '../store/types.js';
import type { FlowDoc, FlowStepDefinition } from './flow-definition.js';
import { readFlowDoc } from './flow-reader.js';

/** A flow's definition with what promotion looks up in it: each step by key, and each step's dependents. */
export interface IndexedFlowDoc {
  doc: FlowDoc;
  byKey: ReadonlyMap<string, FlowStepDefinition>;
  dependents: ReadonlyMap<string, readonly string[]>;
}

/** Flow definitions kept per process; the oldest read is dropped past this many. */
const KEPT_FLOWS = 64;

/**
 * Reads flow definitions, keeping the last few read (deep-frozen) with their step and dependents
 * indexes. Safe to keep: a flow document is written once, by insert-if-absent, and never changed
 * or removed (flow-admission.ts), so every instance reads the same one forever. Only saves reads:
 * a definition not kept is read from the store again. Without it every settled step copied its
 * flow's whole definition (up to 1,000 steps) out of the store and indexed it afresh.
 */
export function createFlowDocs(store: StateStore) {
  const kept = new Map<string, IndexedFlowDoc>();

  async function read(flowId: string): Promise<IndexedFlowDoc | null> {
    const hit = kept.get(flowId);
    if (hit) {
      // Most recently read last: the first entry is the one dropped.
      kept.delete(flowId);
      kept.set(flowId, hit);
      return hit;
    }
    const doc = await readFlowDoc(store, flowId);
    // Not kept while absent: its admission may write it yet.
    if (!doc) return null;
    const indexed = indexFlowDoc(deepFreeze(doc));
    kept.set(flowId, indexed);
    if (kept.size > KEPT_FLOWS) kept.delete(kept.keys().next().value!);
    return indexed;
  }

  return { read, doc: async (flowId: string) => (await read(flowId))?.doc ?? null };
}

export type FlowDocs = ReturnType<typeof createFlowDocs>;

/** Each step by key and each step's dependents, from the flow's definition. */
export function indexFlowDoc(doc: FlowDoc): IndexedFlowDoc {
  const dependents = new Map<string, string[]>();
  for (const step of doc.steps) {
    for (const dep of step.dependsOn) {
      const list = dependents.get(dep);
      if (list) list.push(step.key);
      else dependents.set(dep, [step.key]);
    }
  }
  return { doc, byKey: new Map(doc.steps.map((step) => [step.key, step])), dependents };
}
