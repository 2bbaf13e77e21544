import { useMemo } from 'react';
import DagreDrawing, { type DrawingNode } from './DagreDrawing.js';

export interface GraphNode {
  id: string;
  label: string;
  kind: string;
}
export interface GraphEdge {
  from: string;
  to: string;
  label?: string;
}

/** Node width from its label, so dagre leaves room for it (labels do not wrap). */
const widthOf = (label: string) => Math.max(120, Math.ceil(label.length * 7.5) + 28);
const HEIGHT = 40;
const SPACING = { nodesep: 20, ranksep: 64 };
const kindClass = (kind: string) => `topology-node topology-${kind.replace(/[^a-z0-9-]/gi, '')}`;

/** A layered graph (agent topology); loaded lazily with its layout library. */
export default function LayeredGraph({ nodes, edges, label }: { nodes: readonly GraphNode[]; edges: readonly GraphEdge[]; label: string }) {
  const drawn = useMemo<DrawingNode[]>(
    () => nodes.map((n) => ({ id: n.id, width: widthOf(n.label), height: HEIGHT, className: kindClass(n.kind), content: <span title={n.kind}>{n.label}</span> })),
    [nodes],
  );
  return <DagreDrawing nodes={drawn} edges={edges} label={label} className="graph" spacing={SPACING} />;
}
