import { Link, useParams } from 'react-router';
import { useApiQuery } from '../api/hooks.js';
import { useFilterParams } from '../lib/use-filter-params.js';
import { LeafTable, QueryView, StatusBadge } from '../components/common.js';
import { toQueryString, segment } from '../lib/query-string.js';

const RUN_STATUSES = ['pending', 'running', 'retrying', 'success', 'failed', 'cancelled'];
const PAGE_SIZE = 20;

interface RunRecord {
  runId: string;
  taskId: string;
  type: string;
  status: string;
  createdAt: string;
  updatedAt: string;
  events?: { at?: string; type?: string; kind?: string; message?: string; summary?: string }[];
  queueAttempts?: Record<string, unknown>[];
  approval?: Record<string, unknown>;
  workflow?: Record<string, unknown>;
  workflowGraph?: Record<string, unknown>;
  resultSummary?: Record<string, unknown>;
  proofLinks?: Record<string, unknown>[];
  failureReason?: string;
}

interface RunsPage {
  items: RunRecord[];
  total: number;
  limit: number;
  offset: number;
}

export function RunsPage() {
  const { params, update, offset } = useFilterParams();
  const status = params.get('status') ?? '';
  const type = params.get('type') ?? '';
  const includeInternal = params.get('includeInternal') === 'true';
  const runs = useApiQuery<RunsPage>(
    `/api/tasks/runs${toQueryString({ status, type, includeInternal: includeInternal ? 'true' : null, limit: PAGE_SIZE, offset })}`,
    { refetchInterval: 5_000 },
  );


  return (
    <>
      <h1>Runs</h1>
      <form className="filters" aria-label="Run filters" onSubmit={(e) => e.preventDefault()}>
        <label htmlFor="runs-status">Status</label>
        <select id="runs-status" value={status} onChange={(e) => update({ status: e.target.value })}>
          <option value="">any</option>
          {RUN_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <label htmlFor="runs-type">Type</label>
        <input id="runs-type" defaultValue={type} onBlur={(e) => update({ type: e.target.value.trim() })} placeholder="any" />
        <label className="inline">
          <input type="checkbox" checked={includeInternal} onChange={(e) => update({ includeInternal: e.target.checked ? 'true' : null })} />{' '}
          Include internal
        </label>
      </form>
      <QueryView query={runs} label="runs">
        {(data) => (
          <>
            <table>
              <caption>
                Runs {data.total === 0 ? 0 : data.offset + 1}–{data.offset + data.items.length} of {data.total}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Run</th>
                  <th scope="col">Type</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {data.items.map((r) => (
                  <tr key={r.runId}>
                    <td>
                      <Link to={`/runs/${segment(r.runId)}`}>{r.runId}</Link>
                    </td>
                    <td>{r.type}</td>
                    <td>
                      <StatusBadge status={r.status} />
                    </td>
                    <td>{r.createdAt}</td>
                    <td>{r.updatedAt}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <div className="pager">
              <button type="button" disabled={offset === 0} onClick={() => update({ offset: String(Math.max(0, offset - PAGE_SIZE)) })}>
                Previous page
              </button>
              <button
                type="button"
                disabled={offset + data.items.length >= data.total}
                onClick={() => update({ offset: String(offset + PAGE_SIZE) })}
              >
                Next page
              </button>
            </div>
          </>
        )}
      </QueryView>
    </>
  );
}

export function RunDetailPage() {
  const { runId = '' } = useParams();
  const run = useApiQuery<RunRecord>(`/api/tasks/runs/${segment(runId)}`, { refetchInterval: 5_000 });
  return (
    <>
      <p>
        <Link to="/runs">All runs</Link>
      </p>
      <h1>Run {runId}</h1>
      <QueryView query={run} label="run">
        {(r) => (
          <>
            <p>
              {r.type} <StatusBadge status={r.status} /> {r.failureReason ? `(${r.failureReason})` : ''}
            </p>
            <div className="grid">
              <LeafTable caption="Run" value={{ runId: r.runId, taskId: r.taskId, createdAt: r.createdAt, updatedAt: r.updatedAt }} />
              {r.approval && <LeafTable caption="Approval" value={r.approval} />}
              {r.workflow && <LeafTable caption="Workflow" value={r.workflow} />}
              {r.resultSummary && <LeafTable caption="Result summary" value={r.resultSummary} />}
            </div>
            {r.workflowGraph && <LeafTable caption="Workflow graph" value={r.workflowGraph} prefix="workflowGraph" />}
            <LeafTable caption="Queue attempts" value={r.queueAttempts ?? []} prefix="queueAttempts" />
            <LeafTable caption="Events" value={r.events ?? []} prefix="events" />
            {r.proofLinks && r.proofLinks.length > 0 && <LeafTable caption="Proof links" value={r.proofLinks} prefix="proofLinks" />}
          </>
        )}
      </QueryView>
    </>
  );
}
