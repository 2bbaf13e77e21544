import { lazy, Suspense, useCallback } from 'react';
import { Link, useParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { useApiQuery } from '../api/hooks.js';
import { useEventStream } from '../api/use-event-stream.js';
import { StatusBadge } from '../components/common.js';
import { ScrollTable } from '../components/ScrollTable.js';
import { Loadable, Section } from '../components/states.js';
import { RelativeTime } from '../components/Time.js';
import type { FlowSummary, FlowView } from '../lib/api-types.js';
import { segment } from '../lib/query-string.js';
import { StreamStatus } from '../runs/StreamStatus.js';

const FlowGraph = lazy(() => import('./FlowGraph.js'));

/** `/operator/flows`: the newest flows with their status. */
export function FlowsPage() {
  const list = useApiQuery<{ items: FlowSummary[]; nextCursor: string | null }>('/api/flows?limit=100', { refetchInterval: 5000 });
  return (
    <>
      <h1>Flows</h1>
      <Section id="flows" title="Newest flows">
        <Loadable query={list} label="flows" isEmpty={(d) => d.items.length === 0} empty="No flows yet.">
          {(d) => (
            <ScrollTable
              label="Flows"
              caption={d.nextCursor === null ? `${d.items.length} ${d.items.length === 1 ? 'flow' : 'flows'}` : `The newest ${d.items.length} flows`}
              columns={['Flow', 'Status', 'Steps', 'Created', 'Requested by']}
              className="wide stack-on-phone"
            >
              {d.items.map((f) => (
                <tr key={f.flowId}>
                  <td>
                    <Link to={`/flows/${segment(f.flowId)}`}>{f.flowId}</Link>
                  </td>
                  <td>
                    <StatusBadge status={f.cancelRequested && f.status === 'running' ? 'cancelling' : f.status} />
                  </td>
                  <td data-label="Steps">{f.stepCount}</td>
                  <td>
                    <RelativeTime iso={f.createdAt} />
                  </td>
                  <td data-label="Requested by">{f.requestedBy}</td>
                </tr>
              ))}
            </ScrollTable>
          )}
        </Loadable>
      </Section>
    </>
  );
}

/**
 * `/operator/flows/:flowId`: the flow's graph with each step's state, live. Every event of a step
 * run on the flow's event stream refetches the flow (its steps' states are derived by the
 * service); a slow poll catches the flow's own end, recorded after its last step's.
 */
export function FlowDetailPage() {
  const { flowId = '' } = useParams();
  const path = `/api/flows/${segment(flowId)}`;
  const queryClient = useQueryClient();
  const flow = useApiQuery<FlowView>(path, { refetchInterval: 5000 });
  const running = flow.data === undefined || flow.data.status === 'running';
  const refetch = useCallback(() => void queryClient.invalidateQueries({ queryKey: ['api', path] }), [queryClient, path]);
  const stream = useEventStream(running ? `${path}/events` : null, refetch);
  return (
    <>
      <h1>Flow {flowId}</h1>
      <Loadable query={flow} label="the flow">
        {(f) => (
          <>
            <p>
              <StatusBadge status={f.cancelRequested && f.status === 'running' ? 'cancelling' : f.status} /> {f.stepCount} steps, requested by {f.requestedBy}{' '}
              <RelativeTime iso={f.createdAt} />
              {f.rerunOf && (
                <>
                  {' '}
                  — rerun of <Link to={`/flows/${segment(f.rerunOf)}`}>{f.rerunOf}</Link>
                </>
              )}
            </p>
            {running && <StreamStatus status={stream} label="Step states" />}
            <Section id="flow-graph" title="Steps">
              <Suspense fallback={<p role="status">Loading graph…</p>}>
                <FlowGraph steps={f.steps} />
              </Suspense>
            </Section>
          </>
        )}
      </Loadable>
    </>
  );
}
