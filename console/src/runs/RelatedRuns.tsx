import { Link } from 'react-router';
import { useApiQuery } from '../api/hooks.js';
import type { RunView } from '../api/types.js';
import { can } from '../auth/roles.js';
import { useSession } from '../auth/session.js';
import { StatusBadge } from '../components/common.js';
import { segment } from '../lib/query-string.js';
import { isRecord } from './format.js';

interface Related {
  relation: string;
  runId: string;
  note: string | null;
}

interface IncidentItem {
  id: string;
  title: string;
  severity: string;
  status: string;
  linkedRunIds?: string[];
}

/** Every run this one points at: its replay, what it replays, its reruns, its workflow parent and children. */
export function relatedRunsOf(run: RunView): Related[] {
  const out: Related[] = [];
  if (run.approval.replayRunId) out.push({ relation: 'approved work (replay)', runId: run.approval.replayRunId, note: run.approval.decidedBy ? `approved by ${run.approval.decidedBy}` : null });
  if (run.rerunOf) out.push({ relation: 'rerun of', runId: run.rerunOf, note: null });
  for (const r of run.reruns) out.push({ relation: 'rerun', runId: r, note: null });
  const g = run.workflowGraph as Record<string, unknown>;
  for (const link of Array.isArray(g.crossRunLinks) ? g.crossRunLinks.filter(isRecord) : []) {
    if (typeof link.to === 'string') out.push({ relation: link.relation === 'step-of' ? 'workflow (parent)' : 'rerouted from workflow', runId: link.to, note: `step ${Number(link.stepIndex) + 1}` });
  }
  for (const link of Array.isArray(g.causalLinks) ? g.causalLinks.filter(isRecord) : []) {
    if (typeof link.to === 'string') {
      out.push({ relation: link.relation === 'runs-step' ? `step ${Number(link.stepIndex) + 1}` : 'reroute', runId: link.to, note: typeof link.state === 'string' ? link.state : null });
    }
  }
  return out;
}

/**
 * A replay names the held run by its task id; the approval route (operators) gives that run's id.
 * A viewer sees the task id without a link.
 */
function HeldRunLink({ taskId }: { taskId: string }) {
  const { identity } = useSession();
  const mayRead = can(identity?.role, 'readApprovals');
  const approval = useApiQuery<{ runId: string }>(`/api/approvals/${segment(taskId)}`, { enabled: mayRead });
  const runId = approval.data?.runId;
  return (
    <li>
      <span className="muted">replay of the held run:</span> {runId ? <Link to={`/runs/${segment(runId)}`}>{runId}</Link> : <span className="mono">task {taskId}</span>}
    </li>
  );
}

function LinkedIncidents({ runId }: { runId: string }) {
  const incidents = useApiQuery<{ incidents: IncidentItem[] }>('/api/incidents?includeResolved=true&limit=200');
  if (incidents.isPending) return <p role="status">Loading incidents…</p>;
  if (incidents.error) return <p className="muted">Incidents could not be read.</p>;
  const linked = (incidents.data?.incidents ?? []).filter((i) => i.linkedRunIds?.includes(runId));
  if (linked.length === 0) return <p className="empty">No incident links this run.</p>;
  return (
    <ul aria-label="Linked incidents">
      {linked.map((i) => (
        <li key={i.id}>
          <StatusBadge status={i.severity} /> <Link to={`/incidents/${segment(i.id)}`}>{i.title}</Link> <span className="muted">{i.status}</span>
        </li>
      ))}
    </ul>
  );
}

export function RelatedRuns({ run }: { run: RunView }) {
  const related = relatedRunsOf(run);
  return (
    <section aria-labelledby="related-heading" className="panel">
      <h2 id="related-heading">Related</h2>
      {related.length === 0 && !run.approvedFromTaskId ? (
        <p className="empty">No related runs.</p>
      ) : (
        <ul aria-label="Related runs">
          {run.approvedFromTaskId && <HeldRunLink taskId={run.approvedFromTaskId} />}
          {related.map((r) => (
            <li key={`${r.relation}|${r.runId}`}>
              <span className="muted">{r.relation}:</span> <Link to={`/runs/${segment(r.runId)}`}>{r.runId}</Link>
              {r.note ? <span className="muted"> ({r.note})</span> : null}
            </li>
          ))}
        </ul>
      )}
      <h3>Incidents</h3>
      <LinkedIncidents runId={run.runId} />
    </section>
  );
}
