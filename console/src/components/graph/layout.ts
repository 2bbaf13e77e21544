import { Graph, layout, type EdgeLabel, type GraphLabel, type NodeLabel } from '@dagrejs/dagre';

export type Direction = 'LR' | 'TB';

export interface LayoutNode {
  id: string;
  width: number;
  height: number;
}
export interface LayoutEdge {
  from: string;
  to: string;
  label?: string | null;
}
export interface Point {
  x: number;
  y: number;
}
export interface PlacedNode {
  id: string;
  /** Top-left corner, in the drawing's own pixels. */
  left: number;
  top: number;
  width: number;
  height: number;
}
export interface PlacedEdge {
  from: string;
  to: string;
  points: Point[];
  label: string | null;
  /** Centre of the label, where dagre left room for it. */
  labelAt: Point | null;
}
export interface Placement {
  width: number;
  height: number;
  nodes: PlacedNode[];
  edges: PlacedEdge[];
}

/** Room dagre keeps for an edge label: a rough text width, so labels never overlap nodes. */
const LABEL_HEIGHT = 18;
const labelWidth = (text: string) => text.length * 7 + 12;
const MARGIN = 16;

/**
 * Positions for nodes and routes for edges, from dagre's layered layout. Edges whose ends are not
 * among the nodes are left out (a topology can name agents the service no longer reports).
 */
export function place(nodes: readonly LayoutNode[], edges: readonly LayoutEdge[], direction: Direction, spacing: { nodesep: number; ranksep: number }): Placement {
  const g = new Graph<GraphLabel, NodeLabel, EdgeLabel>();
  g.setGraph({ rankdir: direction, nodesep: spacing.nodesep, ranksep: spacing.ranksep, marginx: MARGIN, marginy: MARGIN });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(n.id, { width: n.width, height: n.height });
  const shown = edges.filter((e) => g.hasNode(e.from) && g.hasNode(e.to) && e.from !== e.to);
  for (const e of shown) {
    g.setEdge(e.from, e.to, e.label ? { width: labelWidth(e.label), height: LABEL_HEIGHT, labelpos: 'c' } : {});
  }
  layout(g);
  const size = g.graph();
  return {
    width: Math.ceil(size.width ?? 0),
    height: Math.ceil(size.height ?? 0),
    nodes: nodes.map((n) => {
      const p = g.node(n.id);
      return { id: n.id, left: (p.x ?? 0) - n.width / 2, top: (p.y ?? 0) - n.height / 2, width: n.width, height: n.height };
    }),
    edges: shown.map((e) => {
      const routed = g.edge(e.from, e.to);
      const labelled = e.label && routed.x !== undefined && routed.y !== undefined;
      return { from: e.from, to: e.to, points: routed.points ?? [], label: e.label ?? null, labelAt: labelled ? { x: routed.x!, y: routed.y! } : null };
    }),
  };
}

/**
 * An SVG path through dagre's edge points: straight to the first point, then quadratic curves
 * whose control points are the bends, so routes around nodes read as smooth lines.
 */
export function pathThrough(points: readonly Point[]): string {
  if (points.length === 0) return '';
  const [first, ...rest] = points;
  const at = (p: Point) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`;
  if (rest.length <= 1) return `M${at(first!)}${rest.length ? ` L${at(rest[0]!)}` : ''}`;
  let d = `M${at(first!)}`;
  for (let i = 0; i < rest.length - 1; i++) {
    const bend = rest[i]!;
    const next = rest[i + 1]!;
    const mid = i === rest.length - 2 ? next : { x: (bend.x + next.x) / 2, y: (bend.y + next.y) / 2 };
    d += ` Q${at(bend)} ${at(mid)}`;
  }
  return d;
}
