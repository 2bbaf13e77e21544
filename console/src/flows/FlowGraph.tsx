import { useMemo } from 'react';
import { Link } from 'react-router';
import { StatusBadge } from '../components/common.js';
import DagreDrawing, { type DrawingNode } from '../components/graph/DagreDrawing.js';
import type { FlowStepView } from '../lib/api-types.js';
import { segment } from '../lib/query-string.js';
import '../runs/runs.css';
import './flows.css';

const NODE_WIDTH = 190;
const NODE_HEIGHT = 72;

function StepNode({ step }: { step: FlowStepView }) {
  // An approved step's work is its replay: the link goes where the work is.
  const runId = step.replayRunId ?? step.runId;
  return (
    <>
      <div className="graph-node-title">{runId ? <Link to={`/runs/${segment(runId)}`}>{step.key}</Link> : step.key}</div>
      <div>
        <StatusBadge status={step.state} />
      </div>
      <div className="graph-node-sub">{step.type}</div>
    </>
  );
}

/** A flow's steps as a graph, each edge from a dependency to its dependent; loaded on demand with its layout library. */
export default function FlowGraph({ steps }: { steps: readonly FlowStepView[] }) {
  const nodes = useMemo<DrawingNode[]>(
    () =>
      steps.map((step) => ({
        id: step.key,
        width: NODE_WIDTH,
        height: NODE_HEIGHT,
        className: `graph-node graph-${step.state.replace(/[^a-z-]/gi, '')}`,
        content: <StepNode step={step} />,
      })),
    [steps],
  );
  const edges = useMemo(() => steps.flatMap((step) => step.dependsOn.map((dep) => ({ from: dep, to: step.key }))), [steps]);
  return <DagreDrawing nodes={nodes} edges={edges} label="Flow steps, drawn" className="graph-box" />;
}
