import { useMemo, useState } from 'react';
import { StatusBadge } from '../common.js';
import { roleTopology, type RoleAgent, type RoleNode, type TopologyEdgeIn } from '../../lib/role-topology.js';
import DagreDrawing, { type DrawingNode } from './DagreDrawing.js';

const SIZE: Record<RoleNode['kind'], { width: number; height: number }> = {
  orchestrator: { width: 130, height: 50 },
  role: { width: 190, height: 54 },
  agent: { width: 280, height: 64 },
};
const SPACING = { nodesep: 14, ranksep: 48 };

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
  const model = useMemo(() => roleTopology(agents, edges, expanded), [agents, edges, expanded]);
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
        ...SIZE[n.kind],
        className: `topology-node topology-${n.kind}`,
        content: <NodeContent node={n} open={n.role !== null && expanded.has(n.role)} onToggle={() => n.role && toggle(n.role)} />,
      })),
    [model, expanded],
  );
  const allOpen = model.roles.every((r) => expanded.has(r));
  return (
    <div className="role-topology">
      <div className="actions">
        <button type="button" className="secondary" onClick={() => setExpanded(allOpen ? new Set() : new Set(model.roles))}>
          {allOpen ? 'Collapse all roles' : 'Expand all roles'}
        </button>
      </div>
      <DagreDrawing
        nodes={nodes}
        edges={model.edges}
        direction="LR"
        spacing={SPACING}
        className="topology-box"
        label={`Agent topology by role: ${model.roles.length} roles, ${expanded.size} expanded`}
      />
      {model.broadcasts.length > 0 && (
        <ul className="hint broadcasts" aria-label="Relationships with every agent">
          {model.broadcasts.map((b) => (
            <li key={`${b.agent}-${b.relationship}`}>
              <code>{b.agent}</code> {b.relationship} every other agent (not drawn)
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
