import { invalidRequest, pointer } from '../domain/errors.js';
import type { FlowDoc } from './flow-definition.js';
import type { LoadedFlow } from './flow-reader.js';

/**
 * The steps a rerun reuses (key -> the run it reuses): those that succeeded, came before `from`
 * in the flow's dependency order (every step, without `from`), and whose dependencies are all
 * reused too (a dependency that runs again may change what its dependents read). The rest run.
 */
export function reusedSteps(flow: LoadedFlow, from: string | undefined): Map<string, string> {
  const doc: FlowDoc = flow.doc;
  const stop = from === undefined ? doc.steps.length : doc.steps.findIndex((s) => s.key === from);
  if (stop < 0) throw invalidRequest(`'${from}' is no step of flow ${doc.flowId}`, [{ path: pointer('body', 'from'), message: 'must be a step key of the flow' }]);
  const reused = new Map<string, string>();
  for (const step of doc.steps.slice(0, stop)) {
    const run = flow.runs.get(step.key);
    if (!run || flow.snapshot.states.get(step.key) !== 'success') continue;
    if (step.dependsOn.every((dep) => reused.has(dep))) reused.set(step.key, run.runId);
  }
  return reused;
}
