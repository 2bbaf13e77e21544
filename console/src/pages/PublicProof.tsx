import { Link } from 'react-router';
import { runsInWords } from '../lib/labels.js';
import { usePublicQuery } from '../api/hooks.js';
import { StatusBadge } from '../components/common.js';
import { RecordView } from '../components/RecordView.js';
import { ScrollTable } from '../components/ScrollTable.js';
import { Loadable, Section } from '../components/states.js';
import { RelativeTime } from '../components/Time.js';
import { useSession } from '../auth/session.js';

interface Milestone {
  id: string;
  kind: string;
  status: string;
  at: string;
  summary: string;
}

interface Lane {
  type: string;
  label: string;
  operationalStatus: string;
  approvalGated: boolean;
  successRate?: number;
  runs?: { total: number };
}

/** A proof record with its generation time, which the section heading shows once instead of a field. */
type ProofRecord = Record<string, unknown> & { generatedAt?: string };

/** One proof record through the console's record renderer: labelled fields, lists as tables, times in words. */
function ProofSection({ id, title, query }: { id: string; title: string; query: { data: ProofRecord | undefined; error: unknown; isPending: boolean } }) {
  return (
    <Section id={id} title={title} actions={query.data?.generatedAt ? <span className="hint">as of <RelativeTime iso={query.data.generatedAt} /></span> : undefined}>
      <div className="card">
        <Loadable query={query} label={title.toLowerCase()}>
          {(data) => <RecordView value={data} omit={['generatedAt']} />}
        </Loadable>
      </div>
    </Section>
  );
}

function MilestoneTable({ caption, rows, empty }: { caption: string; rows: Milestone[]; empty: string }) {
  return (
    <ScrollTable label={caption} caption={caption} columns={['When', 'Kind', 'Status', 'Summary']} className="stack-on-phone" empty={rows.length === 0 ? empty : undefined}>
      {rows.map((m) => (
        <tr key={m.id}>
          <td className="nowrap">
            <RelativeTime iso={m.at} />
          </td>
          <td>{m.kind}</td>
          <td>
            <StatusBadge status={m.status} />
          </td>
          <td className="full">{m.summary}</td>
        </tr>
      ))}
    </ScrollTable>
  );
}

/**
 * The public proof page reads only the public proof routes (/api/command-center/*,
 * /api/milestones/*) and never sends the token, so it shows the same thing signed in or not.
 * Its records read as the other pages' do: labelled fields, tables with column names.
 */
export function PublicProofPage() {
  const { identity } = useSession();
  const overview = usePublicQuery<ProofRecord>('/api/command-center/overview');
  const control = usePublicQuery<{ lanes: Lane[] }>('/api/command-center/control');
  const demand = usePublicQuery<ProofRecord>('/api/command-center/demand');
  const demandLive = usePublicQuery<ProofRecord>('/api/command-center/demand-live');
  const latest = usePublicQuery<{ milestones: Milestone[] }>('/api/milestones/latest');
  const deadLetter = usePublicQuery<{ items: Milestone[] }>('/api/milestones/dead-letter');

  return (
    <main className="public">
      <header className="public-header">
        <h1>Public proof</h1>
        {identity ? <Link to="/">Back to the console</Link> : <Link to="/">Sign in</Link>}
      </header>
      <ProofSection id="proof-overview" title="Overview" query={overview} />
      <div className="grid">
        <ProofSection id="proof-demand" title="Demand" query={demand} />
        <ProofSection id="proof-demand-live" title="Live demand" query={demandLive} />
      </div>
      <Section id="proof-lanes" title="Control lanes">
        <Loadable query={control} label="control lanes" isEmpty={(d) => d.lanes.length === 0} empty="The service reports no lanes.">
          {(data) => (
            <ScrollTable label="Control lanes" caption={`${data.lanes.length} lanes`} columns={['Lane', 'Status', 'Approval', 'Runs']} className="stack-on-phone">
              {data.lanes.map((l) => (
                <tr key={l.type}>
                  <td className="full">
                    <strong>{l.label}</strong> <code className="muted">{l.type}</code>
                  </td>
                  <td>
                    <StatusBadge status={l.operationalStatus} />
                  </td>
                  <td>{l.approvalGated ? 'approval-gated' : <span className="muted">no approval</span>}</td>
                  <td>{runsInWords(l.runs?.total ?? 0, l.successRate)}</td>
                </tr>
              ))}
            </ScrollTable>
          )}
        </Loadable>
      </Section>
      <Section id="proof-milestones" title="Milestones">
        <Loadable query={latest} label="milestones">
          {(data) => <MilestoneTable caption="Latest milestones" rows={data.milestones} empty="No milestone yet." />}
        </Loadable>
        <Loadable query={deadLetter} label="dead letter">
          {(data) => <MilestoneTable caption="Blocked or at-risk items" rows={data.items} empty="Nothing is blocked or at risk." />}
        </Loadable>
      </Section>
    </main>
  );
}
