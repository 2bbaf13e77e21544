import { Graph, layout } from '@dagrejs/dagre';
import { Background, Controls, MarkerType, ReactFlow, type Edge, type Node } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useMemo } from 'react';

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
const widthOf = (label: string) => Math.max(140, label.length * 8 + 36);
const HEIGHT = 44;

/** Positions from dagre (left to right, layered); xyflow draws, pans and zooms. */
function place(nodes: readonly GraphNode[], edges: readonly GraphEdge[], direction: 'LR' | 'TB'): { nodes: Node[]; edges: Edge[] } {
  const g = new Graph();
  g.setGraph({ rankdir: direction, nodesep: 24, ranksep: 70 });
  g.setDefaultEdgeLabel(() => ({}));
  const known = new Set(nodes.map((n) => n.id));
  for (const n of nodes) g.setNode(n.id, { width: widthOf(n.label), height: HEIGHT });
  const shown = edges.filter((e) => known.has(e.from) && known.has(e.to));
  for (const e of shown) g.setEdge(e.from, e.to);
  layout(g);
  return {
    nodes: nodes.map((n) => {
      const p = g.node(n.id);
      return {
        id: n.id,
        data: { label: n.label },
        position: { x: (p?.x ?? 0) - widthOf(n.label) / 2, y: (p?.y ?? 0) - HEIGHT / 2 },
        style: { width: widthOf(n.label) },
        className: `graph-node graph-node-${n.kind}`,
        sourcePosition: direction === 'LR' ? ('right' as Node['sourcePosition']) : ('bottom' as Node['sourcePosition']),
        targetPosition: direction === 'LR' ? ('left' as Node['targetPosition']) : ('top' as Node['targetPosition']),
        connectable: false,
      };
    }),
    edges: shown.map((e, i) => ({
      id: `${e.from}->${e.to}-${i}`,
      source: e.from,
      target: e.to,
      label: e.label,
      markerEnd: { type: MarkerType.ArrowClosed },
    })),
  };
}

/** A layered graph (agent topology); loaded lazily with its libraries. */
export default function LayeredGraph({ nodes, edges, label }: { nodes: readonly GraphNode[]; edges: readonly GraphEdge[]; label: string }) {
  const narrow = typeof window !== 'undefined' && window.innerWidth < 640;
  const placed = useMemo(() => place(nodes, edges, narrow ? 'TB' : 'LR'), [nodes, edges, narrow]);
  return (
    <div className="graph" role="group" aria-label={label}>
      <ReactFlow
        nodes={placed.nodes}
        edges={placed.edges}
        fitView
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={false}
        proOptions={{ hideAttribution: true }}
        colorMode="system"
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
