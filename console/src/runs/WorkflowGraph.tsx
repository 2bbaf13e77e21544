import dagre from '@dagrejs/dagre';
import { Background, Controls, Handle, Position, ReactFlow, type Edge, type Node, type NodeProps, type ReactFlowInstance } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Link } from 'react-router';
import { StatusBadge } from '../components/common.js';
import { segment } from '../lib/query-string.js';
import type { GraphModel, GraphNodeModel } from './workflow-graph-model.js';

const NODE_WIDTH = 200;
const NODE_HEIGHT = 64;

type RunNode = Node<{ model: GraphNodeModel }, 'run'>;

function RunNodeView({ data }: NodeProps<RunNode>) {
  const m = data.model;
  return (
    <div className={`graph-node graph-${m.status.replace(/[^a-z-]/gi, '')}`}>
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <div className="graph-node-title">{m.runId ? <Link to={`/runs/${segment(m.runId)}`}>{m.label}</Link> : m.label}</div>
      <StatusBadge status={m.status} />
      {m.sublabel && <div className="graph-node-sub">{m.sublabel}</div>}
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
  );
}

const NODE_TYPES = { run: RunNodeView };

/** Lays the model out left to right with dagre, so the drawing follows the run's order. */
function layout(model: GraphModel): { nodes: RunNode[]; edges: Edge[] } {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'LR', nodesep: 24, ranksep: 56 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of model.nodes) g.setNode(n.id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const e of model.edges) g.setEdge(e.from, e.to);
  dagre.layout(g);
  const nodes: RunNode[] = model.nodes.map((n) => {
    const pos = g.node(n.id);
    return {
      id: n.id,
      type: 'run',
      position: { x: (pos?.x ?? 0) - NODE_WIDTH / 2, y: (pos?.y ?? 0) - NODE_HEIGHT / 2 },
      data: { model: n },
      draggable: false,
      connectable: false,
      ariaLabel: `${n.label}: ${n.status}`,
    };
  });
  const edges: Edge[] = model.edges.map((e, i) => ({ id: `e${i}`, source: e.from, target: e.to, label: e.label ?? undefined, animated: false }));
  return { nodes, edges };
}

/** The run's graph, drawn; loaded on demand (its libraries are the console's largest). */
export default function WorkflowGraph({ model }: { model: GraphModel }) {
  const { nodes, edges } = useMemo(() => layout(model), [model]);
  const box = useRef<HTMLDivElement>(null);
  const [flow, setFlow] = useState<ReactFlowInstance<RunNode, Edge> | null>(null);
  // The drawing is fitted again when its box changes width (a phone turned, a window resized).
  useEffect(() => {
    if (!flow || !box.current) return;
    const observer = new ResizeObserver(() => void flow.fitView());
    observer.observe(box.current);
    return () => observer.disconnect();
  }, [flow]);
  return (
    <div className="graph-box" ref={box}>
      <ReactFlow
        onInit={setFlow}
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        fitView
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={false}
        minZoom={0.3}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
