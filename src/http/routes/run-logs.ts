import Type, { type Static } from 'typebox';
import { notFound } from '../../domain/errors.js';
import { RunLogsObject } from '../../runlogs/run-log-answer.js';
import type { RunLogReader } from '../../runlogs/types.js';
import { operatorRead, routeFamily, type ProtectedContext, type RouteSpec } from '../route-spec.js';

const RunIdParams = Type.Object({ runId: Type.String({ minLength: 1, maxLength: 400 }) });

/** GET /api/tasks/runs/:runId/logs: what each attempt of a run printed. */
export function runLogRoutes(deps: { runLogs: RunLogReader }): RouteSpec[] {
  return [
    routeFamily({ tags: ['tasks'], access: operatorRead }).get('/api/tasks/runs/:runId/logs', {
      operationId: 'getTaskRunLogs',
      summary: "What each attempt of a run printed: its worker's standard error, its handler's log lines at info and above",
      description:
        'Redacted and bounded per attempt. Every attempt that ran is listed, one that printed nothing with `lines: []`; a run none of whose attempts ran answers `attempts: []`; an unknown run 404.',
      schema: { params: RunIdParams, response: { 200: RunLogsObject } },
      handler: async (ctx: ProtectedContext<unknown, Static<typeof RunIdParams>>) => {
        const logs = await deps.runLogs.read(ctx.params.runId);
        if (!logs) throw notFound(`run ${ctx.params.runId}`);
        return { body: logs };
      },
    }),
  ];
}
