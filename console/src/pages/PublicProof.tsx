import { Link } from 'react-router';
import { usePublicQuery } from '../api/hooks.js';
import { LeafTable, QueryView, StatusBadge } from '../components/common.js';
import { useSession } from '../auth/session.js';

interface Milestone {
  id: string;
  kind: string;
  status: string;
  at: string;
  summary: string;
}

/**
 * The public proof page reads only the public proof routes (/api/command-center/*,
 * /api/milestones/*) and never sends the token, so it shows the same thing signed in or not.
 */
export function PublicProofPage() {
  const { identity } = useSession();
  const overview = usePublicQuery<Record<string, unknown>>('/api/command-center/overview');
  const control = usePublicQuery<{ lanes: { type: string; label: string; operationalStatus: string; approvalGated: boolean }[] }>(
    '/api/command-center/control',
  );
  const demand = usePublicQuery<Record<string, unknown>>('/api/command-center/demand');
  const demandLive = usePublicQuery<Record<string, unknown>>('/api/command-center/demand-live');
  const latest = usePublicQuery<{ milestones: Milestone[] }>('/api/milestones/latest');
  const deadLetter = usePublicQuery<{ items: Milestone[] }>('/api/milestones/dead-letter');

  const milestoneTable = (caption: string, rows: Milestone[]) => (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">At</th>
          <th scope="col">Kind</th>
          <th scope="col">Status</th>
          <th scope="col">Summary</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((m) => (
          <tr key={m.id}>
            <td>{m.at}</td>
            <td>{m.kind}</td>
            <td>
              <StatusBadge status={m.status} />
            </td>
            <td>{m.summary}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );

  return (
    <main className="public">
      <header className="public-header">
        <h1>Public proof</h1>
        {identity ? <Link to="/">Back to the console</Link> : <Link to="/">Sign in</Link>}
      </header>
      <div className="grid">
        <QueryView query={overview} label="overview">
          {(data) => <LeafTable caption="Overview" value={data} />}
        </QueryView>
        <QueryView query={demand} label="demand">
          {(data) => <LeafTable caption="Demand" value={data} />}
        </QueryView>
        <QueryView query={demandLive} label="live demand">
          {(data) => <LeafTable caption="Live demand" value={data} />}
        </QueryView>
      </div>
      <QueryView query={control} label="control lanes">
        {(data) => (
          <table>
            <caption>Control lanes</caption>
            <thead>
              <tr>
                <th scope="col">Type</th>
                <th scope="col">Label</th>
                <th scope="col">Status</th>
                <th scope="col">Approval gated</th>
              </tr>
            </thead>
            <tbody>
              {data.lanes.map((l) => (
                <tr key={l.type}>
                  <td>{l.type}</td>
                  <td>{l.label}</td>
                  <td>{l.operationalStatus}</td>
                  <td>{l.approvalGated ? 'yes' : 'no'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </QueryView>
      <QueryView query={latest} label="milestones">
        {(data) => milestoneTable('Latest milestones', data.milestones)}
      </QueryView>
      <QueryView query={deadLetter} label="dead letter">
        {(data) => milestoneTable('Blocked or at-risk items', data.items)}
      </QueryView>
    </main>
  );
}
