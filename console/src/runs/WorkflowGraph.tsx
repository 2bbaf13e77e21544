import { useMemo } from 'react';
import { Link } from 'react-router';
import { StatusBadge } from '../components/common.js';
import DagreDrawing, { type DrawingNode } from '../components/graph/DagreDrawing.js';
import { segment } from '../lib/query-string.js';
import type { GraphModel, GraphNodeModel } from './workflow-graph-model.js';

const NODE_WIDTH = 200;
const NODE_HEIGHT = 68;

function RunNodeView({ model }: { model: GraphNodeModel }) {
  return (
    <>
      <div className="graph-node-title">{model.runId ? <Link to={`/runs/${segment(model.runId)}`}>{model.label}</Link> : model.label}</div>
      <div>
        <StatusBadge status={model.status} />
      </div>
      {model.sublabel && <div className="graph-node-sub">{model.sublabel}</div>}
    </>
  );
}

/** The run's graph, drawn in the run's order; loaded on demand with its layout library. */
export default function WorkflowGraph({ model }: { model: GraphModel }) {
  const nodes = useMemo<DrawingNode[]>(
    () =>
      model.nodes.map((n) => ({
        id: n.id,
        width: NODE_WIDTH,
        height: NODE_HEIGHT,
        className: `graph-node graph-${n.status.replace(/[^a-z-]/gi, '')}`,
        content: <RunNodeView model={n} />,
      })),
    [model],
  );
  return <DagreDrawing nodes={nodes} edges={model.edges} label={model.steps ? 'Workflow steps, drawn' : 'Run stages, drawn'} className="graph-box" />;
}
