import type { QueueAnswer } from '../runtime/queue-view.js';
import type { RunLogLine } from '../domain/run-log-line.js';
import type { RunEventData } from '../events/sse-frames.js';
import type { TriggerAnswer as Admission } from '../runtime/trigger-answer.js';
import type { RunView } from '../runtime/run-view.js';
import type { FlowView } from '../flows/flow-view.js';
import { createHttp, type ClientOptions, type ClientResponse } from './http.js';
import { followEventStream, type FollowOptions, type StreamEvent } from './sse.js';

/** What a trigger or rerun answers; `approval: "required"` on a queued run held for a decision. */
export type TriggerAnswer = Admission & { approval?: 'required' };
export type RunRecordView = RunView;

/** `data` of an `event: run` on a run's or the service's event stream. */
export type RunStreamEvent = RunEventData;

/** A flow as GET /api/flows/:id answers it (src/flows/flow-view.ts). */
export type FlowRecordView = FlowView;
/** What POST /api/flows and /api/flows/:id/rerun answer. */
export interface FlowAdmission {
  status: 'queued' | 'duplicate-suppressed';
  flowId: string;
  runIds: string[];
  rerunOf?: string;
}

/** `data` of an `event: log`. */
export type LogStreamLine = RunLogLine;

export interface RunListQuery {
  status?: string;
  type?: string;
  limit?: number;
  cursor?: string;
  includeInternal?: boolean;
  /** `held`: runs waiting for an approval; `ready`: pending runs waiting for a slot. */
  queueState?: 'held' | 'ready';
  /** Runs whose id starts with this text (how a short id is resolved). */
  idPrefix?: string;
  /** Runs carrying every one of these tags. */
  tag?: string[];
}

const enc = encodeURIComponent;

/**
 * The typed client of the service's API, shared by the `orch` command line and the `/orch` chat
 * bridge. Every method resolves with the service's JSON or throws an OrchApiError (code, message,
 * request id) or OrchNetworkError.
 */
export function createOrchClient(options: ClientOptions) {
  const http = createHttp(options);
  const get = async <T>(path: string, query?: Record<string, string | number | boolean | readonly string[] | undefined>) =>
    (await http.request<T>('GET', path, { query })).body;
  const post = async <T>(path: string, body: unknown, idempotent = false): Promise<ClientResponse<T>> => http.request<T>('POST', path, { body, idempotent });

  return {
    http,
    /** Admits a task. With an idempotency key the request is safe to repeat, so it is retried like a GET. */
    /** `tags`: labels kept on the run (docs/tasks.md, "Run tags"). */
    async trigger(type: string, payload: Record<string, unknown>, tags: string[] = []): Promise<{ status: number; body: TriggerAnswer }> {
      const keyed = typeof payload.idempotencyKey === 'string';
      const res = await post<TriggerAnswer>('/api/tasks/trigger', { type, payload, ...(tags.length > 0 ? { tags } : {}) }, keyed);
      return { status: res.status, body: res.body };
    },
    listRuns: (query: RunListQuery = {}) =>
      get<{ items: RunRecordView[]; total: number; limit: number; offset: number; nextCursor: string | null }>('/api/tasks/runs', { ...query }),
    getRun: (runId: string) => get<RunRecordView>(`/api/tasks/runs/${enc(runId)}`),
    runLogs: (runId: string) =>
      get<{ runId: string; attempts: Array<{ attemptId: string; lines: Array<{ at: string; stream: string; line: string }>; truncated: number }> }>(
        `/api/tasks/runs/${enc(runId)}/logs`,
      ),
    async cancel(runId: string, reason?: string) {
      return (await post<{ runId: string; status: string }>(`/api/tasks/runs/${enc(runId)}/cancel`, reason ? { reason } : {}, true)).body;
    },
    async rerun(runId: string, body: { payload?: Record<string, unknown>; idempotencyKey?: string } = {}) {
      const res = await post<TriggerAnswer>(`/api/tasks/runs/${enc(runId)}/rerun`, body, body.idempotencyKey !== undefined);
      return { status: res.status, body: res.body };
    },
    /** GET /api/queue: limit buckets and the whole queue by concurrency key (docs/queue.md). */
    queue: () => get<QueueAnswer>('/api/queue'),
    pendingApprovals: () => get<{ count: number; pending: Array<Record<string, unknown> & { taskId: string; runId: string; type: string }> }>('/api/approvals/pending'),
    /** `input`: fields for the replay's payload, checked by the service against the type's approval input schema. */
    async decide(id: string, decision: 'approve' | 'reject', note?: string, input?: Record<string, unknown>) {
      const body = {
        decision: decision === 'approve' ? 'approved' : 'rejected',
        ...(note ? { note } : {}),
        ...(input && Object.keys(input).length > 0 ? { input } : {}),
      };
      return (await post<Record<string, unknown>>(`/api/approvals/${enc(id)}/decision`, body)).body;
    },
    incidents: () => get<{ items?: Array<Record<string, unknown>>; incidents?: Array<Record<string, unknown>> } & Record<string, unknown>>('/api/incidents'),
    async acknowledge(id: string) {
      return (await post<Record<string, unknown>>(`/api/incidents/${enc(id)}/acknowledge`, {}, true)).body;
    },
    schedules: () => get<{ items?: Array<Record<string, unknown>>; schedules?: Array<Record<string, unknown>> } & Record<string, unknown>>('/api/schedules'),
    async addSchedule(schedule: Record<string, unknown>) {
      return (await post<Record<string, unknown>>('/api/schedules', schedule)).body;
    },
    async updateSchedule(id: string, change: Record<string, unknown>) {
      return (await http.request<Record<string, unknown>>('PATCH', `/api/schedules/${enc(id)}`, { body: change, idempotent: true })).body;
    },
    async removeSchedule(id: string) {
      await http.request('DELETE', `/api/schedules/${enc(id)}`);
    },
    async createFlow(flow: Record<string, unknown>) {
      // With an id or an idempotency key the flow is admitted once however often it is sent: retried like a GET.
      const res = await post<FlowAdmission>('/api/flows', flow, typeof flow.id === 'string' || typeof flow.idempotencyKey === 'string');
      return { status: res.status, body: res.body };
    },
    getFlow: (flowId: string) => get<FlowRecordView>(`/api/flows/${enc(flowId)}`),
    async cancelFlow(flowId: string, reason?: string) {
      return (await post<FlowRecordView>(`/api/flows/${enc(flowId)}/cancel`, reason ? { reason } : {}, true)).body;
    },
    async rerunFlow(flowId: string, from?: string) {
      return (await post<FlowAdmission>(`/api/flows/${enc(flowId)}/rerun`, from ? { from } : {})).body;
    },
    catalog: () => get<{ count: number; tasks: Array<Record<string, unknown> & { type: string }> }>('/api/tasks/catalog'),
    health: () => get<Record<string, unknown>>('/health'),
    me: () => get<Record<string, unknown>>('/api/auth/me'),
    companion: (view: 'overview' | 'catalog' | 'incidents' | 'runs' | 'approvals') => get<Record<string, unknown>>(`/api/companion/${view}`),
    /** Follows a run's events until its end; `onLog` receives its live log lines. */
    followRun(runId: string, handlers: { onEvent: (event: RunStreamEvent, id: string | null) => void; onLog?: (line: LogStreamLine) => void }, options: FollowOptions = {}) {
      return followEventStream(
        http,
        `/api/tasks/runs/${enc(runId)}/events`,
        (event: StreamEvent) => {
          if (event.event === 'run') handlers.onEvent(JSON.parse(event.data) as RunStreamEvent, event.id);
          else if (event.event === 'log') handlers.onLog?.(JSON.parse(event.data) as LogStreamLine);
        },
        options,
      );
    },
  };
}

export type OrchClient = ReturnType<typeof createOrchClient>;
