import type { RunView } from '../api/types.js';
import { isRecord } from './format.js';
import { runStagesModel } from './run-stages.js';

export interface GraphNodeModel {
  id: string;
  label: string;
  sublabel: string | null;
  status: string;
  /** The child run this node stands for, when it is one (an integration-workflow's step). */
  runId: string | null;
}

export interface GraphModel {
  nodes: GraphNodeModel[];
  edges: Array<{ from: string; to: string; label: string | null }>;
  /** An integration workflow's steps (true) or the run's own stages (false). */
  steps: boolean;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * The graph to draw for a run, or null when there is nothing a drawing would add. A workflow
 * with child runs draws its steps in order, each a node linking to its run, and a reroute beside
 * the step it replaces; any other run draws its stages when it has an approval, a replay or more
 * than one attempt (run-stages.ts).
 */
export function graphModelOf(run: RunView): GraphModel | null {
  const g = run.workflowGraph as Record<string, unknown>;
  const links = Array.isArray(g.causalLinks) ? g.causalLinks.filter(isRecord) : [];
  if (links.length > 0) {
    const root: GraphNodeModel = { id: run.runId, label: run.type, sublabel: 'workflow', status: run.status, runId: null };
    const nodes: GraphNodeModel[] = [root];
    const edges: GraphModel['edges'] = [];
    const steps = links.filter((l) => l.relation === 'runs-step').sort((a, b) => Number(a.stepIndex) - Number(b.stepIndex));
    let previous = root.id;
    for (const step of steps) {
      const id = str(step.to) ?? `step-${String(step.stepIndex)}`;
      nodes.push({ id, label: `${Number(step.stepIndex) + 1}. ${str(step.type) ?? 'step'}`, sublabel: str(step.detail), status: str(step.state) ?? 'unknown', runId: str(step.to) });
      edges.push({ from: previous, to: id, label: previous === root.id ? 'starts' : 'then' });
      previous = id;
    }
    for (const reroute of links.filter((l) => l.relation !== 'runs-step')) {
      const id = str(reroute.to) ?? `reroute-${String(reroute.stepIndex)}`;
      const replaced = steps.find((s) => s.stepIndex === reroute.stepIndex);
      nodes.push({ id, label: `reroute: ${str(reroute.type) ?? 'step'}`, sublabel: str(reroute.detail), status: str(reroute.state) ?? 'unknown', runId: str(reroute.to) });
      edges.push({ from: (replaced && str(replaced.to)) ?? root.id, to: id, label: 'rerouted' });
    }
    return { nodes, edges, steps: true };
  }
  return runStagesModel(run);
}
