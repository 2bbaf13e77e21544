import { useMemo, useState } from 'react';
import { StatusBadge } from '../common.js';
import { roleTopology, type RoleAgent, type RoleNode, type TopologyEdgeIn } from '../../lib/role-topology.js';
import DagreDrawing, { useNarrow, type DrawingNode } from './DagreDrawing.js';

const SIZE: Record<RoleNode['kind'], { width: number; height: number }> = {
  orchestrator: { width: 130, height: 50 },
  role: { width: 190, height: 54 },
  agent: { width: 280, height: 64 },
};
/** On a phone, collapsed roles fit its width: two ranks of narrower role boxes, no orchestrator. */
const NARROW_ROLE = { width: 150, height: 54 };
const SPACING = { nodesep: 14, ranksep: 48 };
const NARROW_SPACING = { nodesep: 12, ranksep: 28 };

function NodeContent({ node, open, onToggle }: { node: RoleNode; open: boolean; onToggle: () => void }) {
  if (node.kind === 'role') {
    return (
      <>
        <button type="button" className="role-toggle" aria-expanded={open} onClick={onToggle}>
          <span aria-hidden="true">{open ? '▾' : '▸'}</span> {node.label}
        </button>
        <span className="graph-node-sub">{node.detail}</span>
      </>
    );
  }
  return (
    <>
      <strong className="graph-node-title">{node.label}</strong>
      <span className="graph-node-sub">
        {node.readiness && <StatusBadge status={node.readiness} />} {node.detail}
      </span>
    </>
  );
}

/**
 * The agent topology grouped by role (lib/role-topology.ts): roles start collapsed, each opens
 * to its agents, and the drawing's box never grows past most of a screen (it scrolls inside).
 * Loaded lazily with the layout library.
 */
export default function RoleTopologyDrawing({ agents, edges }: { agents: readonly RoleAgent[]; edges: readonly TopologyEdgeIn[] }) {
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set());
  const narrow = useNarrow();
  const model = useMemo(() => roleTopology(agents, edges, expanded, !narrow), [agents, edges, expanded, narrow]);
  const toggle = (role: string) =>
    setExpanded((current) => {
      const next = new Set(current);
      if (!next.delete(role)) next.add(role);
      return next;
    });
  const nodes = useMemo<DrawingNode[]>(
    () =>
      model.nodes.map((n) => ({
        id: n.id,
        ...(narrow && n.kind === 'role' ? NARROW_ROLE : SIZE[n.kind]),
        className: `topology-node topology-${n.kind}`,
        content: <NodeContent node={n} open={n.role !== null && expanded.has(n.role)} onToggle={() => n.role && toggle(n.role)} />,
      })),
    [model, expanded, narrow],
  );
  const allOpen = model.roles.every((r) => expanded.has(r));
  // A phone has no room beside the edges for their labels: they are said in words below instead.
  const drawnEdges = useMemo(() => (narrow ? model.edges.map((e) => ({ ...e, label: null })) : model.edges), [model, narrow]);
  const labelOf = new Map(model.nodes.map((n) => [n.id, n.label]));
  const saidEdges = narrow ? model.edges.filter((e) => e.label !== null) : [];
  return (
    <div className="role-topology">
      <div className="actions">
        <button type="button" className="secondary" onClick={() => setExpanded(allOpen ? new Set() : new Set(model.roles))}>
          {allOpen ? 'Collapse all roles' : 'Expand all roles'}
        </button>
      </div>
      <DagreDrawing
        nodes={nodes}
        edges={drawnEdges}
        direction="LR"
        spacing={narrow ? NARROW_SPACING : SPACING}
        className="topology-box"
        label={`Agent topology by role: ${model.roles.length} roles, ${expanded.size} expanded`}
      />
      {model.broadcasts.length + saidEdges.length > 0 && (
        <ul className="hint broadcasts" aria-label="Relationships between agents">
          {saidEdges.map((e) => (
            <li key={`${e.from}-${e.to}-${e.label}`}>
              {labelOf.get(e.from)} {e.label} {labelOf.get(e.to)}
            </li>
          ))}
          {model.broadcasts.length > 0 && (
            <li>
              {model.broadcasts.map((b, i) => (
                <span key={`${b.agent}-${b.relationship}`}>
                  {i === 0 ? '' : i === model.broadcasts.length - 1 ? ' and ' : ', '}
                  <code>{b.agent}</code> {b.relationship}
                </span>
              ))}{' '}
              every other agent (not drawn).
            </li>
          )}
        </ul>
      )}
    </div>
  );
}
