import { lazy, Suspense, useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError } from '../api/errors.js';
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../api/client.js';
import { useSession } from '../auth/session.js';
import type { RunView } from '../api/types.js';
import { QueryView, RunStatusBadge, StatusBadge } from '../components/common.js';
import { segment } from '../lib/query-string.js';
import { AttemptTimeline } from './AttemptTimeline.js';
import { formatDuration, formatTime } from './format.js';
import { formatRelative } from '../lib/time.js';
import { pendingNotBefore } from '../lib/queue-words.js';
import { RelatedRuns } from './RelatedRuns.js';
import { RunActions } from './RunActions.js';
import { RunEvents } from './RunEvents.js';
import { RunLogs } from './RunLogs.js';
import { RunResult } from './RunResult.js';
import { ResultTree } from './ResultTree.js';
import { StreamStatus } from './StreamStatus.js';
import { TagChips } from './TagChips.js';
import { useNow } from './use-now.js';
import { useRunLive } from './use-run-live.js';
import { graphModelOf } from './workflow-graph-model.js';
import { isAwaitingApproval } from './held.js';
import './runs.css';

const WorkflowGraph = lazy(() => import('./WorkflowGraph.js'));

const isTerminal = (status: string) => status === 'success' || status === 'failed' || status === 'cancelled';

function triggeredBy(run: RunView): string {
  const who = run.requestedBy ?? 'the service';
  const source = run.source ?? 'trigger';
  return run.scheduleId ? `${who} via schedule ${run.scheduleId}` : `${who} via ${source}`;
}

function RunHeader({ run }: { run: RunView }) {
  const now = useNow(isTerminal(run.status) ? null : 1000);
  const end = run.finishedAt ? Date.parse(run.finishedAt) : now;
  const duration = end - Date.parse(run.createdAt);
  const notBefore = pendingNotBefore(run, now);
  return (
    <header className="run-header">
      <h1>
        Run {run.runId} <RunStatusBadge status={run.status} held={isAwaitingApproval(run)} />
      </h1>
      <dl className="facts">
        <div>
          <dt>Type</dt>
          <dd>{run.type}</dd>
        </div>
        <div>
          <dt>Triggered by</dt>
          <dd>{triggeredBy(run)}</dd>
        </div>
        {run.tags.length > 0 && (
          <div>
            <dt>Tags</dt>
            <dd>
              <TagChips tags={run.tags} />
            </dd>
          </div>
        )}
        <div>
          <dt>Created</dt>
          <dd>
            <time dateTime={run.createdAt}>{formatTime(run.createdAt)}</time>
          </dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>
            {formatDuration(duration)}
            {run.finishedAt ? '' : ' so far'}
          </dd>
        </div>
        {run.flowStep && (
          <div>
            <dt>Flow</dt>
            <dd>
              step {run.flowStep.key} of <Link to={`/flows/${segment(run.flowStep.flowId)}`}>{run.flowStep.flowId}</Link>
              {run.flowStep.skipped ? ` (skipped: ${run.flowStep.skipped.reason})` : ''}
            </dd>
          </div>
        )}
        {isAwaitingApproval(run) && (
          <div>
            <dt>Waiting for</dt>
            <dd>an approval decision{run.approval.requestedAt ? <> since {formatTime(run.approval.requestedAt)}</> : null}</dd>
          </div>
        )}
        {notBefore !== null && (
          <div>
            <dt>Runs not before</dt>
            <dd>
              <time dateTime={notBefore} title={notBefore}>
                {formatTime(notBefore)}
              </time>{' '}
              ({formatRelative(notBefore, now)})
            </dd>
          </div>
        )}
        <div>
          <dt>Attempts</dt>
          <dd>{run.attempt}</dd>
        </div>
        {run.cancellation && (
          <div>
            <dt>Cancel</dt>
            <dd>
              asked by {run.cancellation.requestedBy}
              {run.cancellation.reason ? `: ${run.cancellation.reason}` : ''}
              {run.cancellation.completedAt ? '' : ' (stopping…)'}
            </dd>
          </div>
        )}
        {run.retry && run.status === 'retrying' && (
          <div>
            <dt>Next retry</dt>
            <dd>{formatTime(run.retry.nextRetryAt)}</dd>
          </div>
        )}
      </dl>
    </header>
  );
}

function Panel({ id, title, children, extra }: { id: string; title: string; children: React.ReactNode; extra?: React.ReactNode }) {
  return (
    <section aria-labelledby={`${id}-heading`} className="panel">
      <h2 id={`${id}-heading`}>{title}</h2>
      {extra}
      {children}
    </section>
  );
}

/** The run's graph; a plain run (admitted, executed once, ended) has none and shows no panel. */
function GraphPanel({ run }: { run: RunView }) {
  const model = useMemo(() => graphModelOf(run), [run]);
  const [drawn, setDrawn] = useState(true);
  if (!model) return null;
  return (
    <Panel id="graph" title={model.steps ? 'Workflow steps' : 'Run graph'}>
      <label className="inline">
        <input type="checkbox" checked={drawn} onChange={(e) => setDrawn(e.target.checked)} /> Draw as a graph
      </label>
      {drawn && (
        <Suspense fallback={<p role="status">Loading graph…</p>}>
          <WorkflowGraph model={model} />
        </Suspense>
      )}
      <ol className="graph-list" aria-label={model.steps ? 'Steps' : 'Stages'}>
        {model.nodes.map((n) => (
          <li key={n.id}>
            {n.runId ? <Link to={`/runs/${segment(n.runId)}`}>{n.label}</Link> : n.label} <StatusBadge status={n.status} />
            {n.sublabel ? <span className="muted"> {n.sublabel}</span> : null}
          </li>
        ))}
      </ol>
    </Panel>
  );
}

function RunBody({ run, live }: { run: RunView; live: ReturnType<typeof useRunLive> }) {
  return (
    <>
      <RunHeader run={run} />
      <StreamStatus status={live.stream} label="Live updates" />
      <div className="run-grid">
        <div className="run-main">
          <RunResult run={run} />
          <Panel id="timeline" title="Timeline">
            <AttemptTimeline run={run} />
          </Panel>
          <GraphPanel run={run} />
          <Panel id="logs" title="Logs">
            <RunLogs runId={run.runId} live={live.lines} />
          </Panel>
          <Panel id="events" title="Events">
            <RunEvents events={live.events.length > 0 ? live.events : run.events.map((e) => ({ runId: run.runId, taskId: run.taskId, type: run.type, status: e.status ?? run.status, seq: e.seq, at: e.at, kind: e.kind, name: e.name, detail: e.detail ?? null }))} />
          </Panel>
        </div>
        <aside className="run-actions" aria-label="Run actions">
          <RunActions run={run} />
        </aside>
        <aside className="run-info" aria-label="Run input and links">
          <Panel id="payload" title="Input payload">
            {Object.keys(run.payload).length === 0 ? <p className="empty">Empty payload.</p> : <ResultTree value={run.payload} />}
          </Panel>
          <RelatedRuns run={run} />
        </aside>
      </div>
    </>
  );
}

const BUSY_STEP_STATES = new Set(['waiting', 'queued', 'awaiting-approval', 'running', 'retrying']);

/** A workflow whose steps are still moving: their changes are written to the child runs, not to this one's events. */
function hasBusySteps(run: RunView | undefined): boolean {
  const links = (run?.workflowGraph as { causalLinks?: Array<{ state?: string }> } | undefined)?.causalLinks ?? [];
  return links.some((l) => l.state !== undefined && BUSY_STEP_STATES.has(l.state));
}

/**
 * The run's record. Its own events refresh it (useRunLive); it is read again every 2 s only while
 * a workflow's steps are moving, and every 5 s while the event stream is down.
 */
function useRunQuery(runId: string, streamState: string) {
  const { token } = useSession();
  const path = `/api/tasks/runs/${segment(runId)}`;
  return useQuery({
    queryKey: ['api', path],
    queryFn: async ({ signal }) => (await apiRequest<RunView>(path, { token, signal })).body,
    enabled: token !== null,
    refetchInterval: (query) => {
      if (hasBusySteps(query.state.data)) return 2000;
      const live = streamState === 'open' || streamState === 'connecting' || streamState === 'ended';
      return live || isTerminal(query.state.data?.status ?? '') ? false : 5000;
    },
  });
}

/** `/operator/runs/:runId`: one run, live. */
export function RunDetailPage() {
  const { runId = '' } = useParams();
  const live = useRunLive(runId);
  const run = useRunQuery(runId, live.stream.state);
  const notFound = run.error instanceof ApiError && run.error.status === 404;
  return (
    <>
      <p>
        <Link to="/runs">All runs</Link>
      </p>
      {notFound ? (
        <>
          <h1>Run {runId}</h1>
          <p className="empty" role="status">
            No run has the id {runId}. It may have been pruned.
          </p>
        </>
      ) : (
        <QueryView query={run} label="run">
          {(r) => <RunBody run={r} live={live} />}
        </QueryView>
      )}
    </>
  );
}
