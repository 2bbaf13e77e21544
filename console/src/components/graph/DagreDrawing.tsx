import { useId, useMemo, useSyncExternalStore, type ReactNode } from 'react';
import { pathThrough, place, type Direction, type LayoutEdge } from './layout.js';
import './drawing.css';

export interface DrawingNode {
  id: string;
  width: number;
  height: number;
  /** Classes on the node's box (its kind or status colours it). */
  className?: string;
  content: ReactNode;
}

/** Phones read a drawing top to bottom; wider screens left to right (the order of the work). */
const NARROW = '(max-width: 640px)';
function subscribe(onChange: () => void): () => void {
  const query = window.matchMedia(NARROW);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}
const isNarrow = () => window.matchMedia(NARROW).matches;

/** True on a phone-sized screen (640 px and under), following the window as it changes. */
export const useNarrow = () => useSyncExternalStore(subscribe, isNarrow, () => false);
const SPACING = { nodesep: 24, ranksep: 56 };

/**
 * A layered graph: dagre places the nodes and routes the edges; edges are drawn as SVG paths with
 * arrowheads, nodes as HTML boxes over them (so links and badges inside work and take focus).
 * The drawing keeps its natural size, so text stays legible, and its box scrolls sideways when
 * the drawing is wider than the page.
 */
export default function DagreDrawing({
  nodes,
  edges,
  label,
  className,
  spacing = SPACING,
  direction: fixedDirection,
}: {
  nodes: readonly DrawingNode[];
  edges: readonly LayoutEdge[];
  /** The drawing's accessible name. */
  label: string;
  className?: string;
  spacing?: { nodesep: number; ranksep: number };
  /** A drawing whose ranks are few and wide reads better one way on every screen. */
  direction?: Direction;
}) {
  const narrow = useNarrow();
  const direction: Direction = fixedDirection ?? (narrow ? 'TB' : 'LR');
  const placed = useMemo(() => place(nodes, edges, direction, spacing), [nodes, edges, direction, spacing]);
  const arrow = `arrow-${useId().replace(/[^a-zA-Z0-9_-]/g, '')}`;
  const contentOf = new Map(nodes.map((n) => [n.id, n]));
  return (
    // Focusable so a keyboard can scroll it when it overflows; named for what it draws.
    <div className={`drawing${className ? ` ${className}` : ''}`} role="group" aria-label={label} tabIndex={0}>
      <div className="drawing-canvas" style={{ width: placed.width, height: placed.height }}>
        <svg className="drawing-edges" width={placed.width} height={placed.height} aria-hidden="true" focusable="false">
          <defs>
            <marker id={arrow} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M0,0 L10,5 L0,10 z" className="drawing-arrow" />
            </marker>
          </defs>
          {placed.edges.map((e, i) => (
            <path key={`${e.from}->${e.to}-${i}`} d={pathThrough(e.points)} className="drawing-edge" markerEnd={`url(#${arrow})`} />
          ))}
        </svg>
        {placed.edges.map((e, i) =>
          e.label && e.labelAt ? (
            <span key={`label-${i}`} className="drawing-edge-label" aria-hidden="true" style={{ left: e.labelAt.x, top: e.labelAt.y }}>
              {e.label}
            </span>
          ) : null,
        )}
        {placed.nodes.map((p) => {
          const n = contentOf.get(p.id);
          return (
            <div
              key={p.id}
              className={`drawing-node${n?.className ? ` ${n.className}` : ''}`}
              style={{ left: p.left, top: p.top, width: p.width, height: p.height }}
            >
              {n?.content}
            </div>
          );
        })}
      </div>
    </div>
  );
}
