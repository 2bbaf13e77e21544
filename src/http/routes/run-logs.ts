import Type, { type Static } from 'typebox';
import { notFound } from '../../domain/errors.js';
import { DEFAULT_RUN_LOG_LIMITS as LIMITS } from '../../runlogs/limits.js';
import type { RunLogReader } from '../../runlogs/types.js';
import type { ProtectedContext, RouteSpec } from '../route-spec.js';

const RunIdParams = Type.Object({ runId: Type.String({ minLength: 1, maxLength: 400 }) });

const RunLogLineObject = Type.Object(
  {
    at: Type.String({ format: 'date-time', description: 'When the service received the line.' }),
    stream: Type.Union([Type.Literal('stderr'), Type.Literal('log')], {
      description: "`stderr`: the worker's standard error; `log`: the in-process handler's log (info and above).",
    }),
    line: Type.String({ description: `Redacted (secrets, tokens, keys) and at most ${LIMITS.lineMaxBytes} bytes; a longer line ends with \`…[+N bytes]\`.` }),
  },
  { additionalProperties: false },
);

const RunLogsObject = Type.Object(
  {
    runId: Type.String(),
    attempts: Type.Array(
      Type.Object(
        {
          attemptId: Type.String({ description: '`<runId>#<attempt>`, as in queueAttempts[].attemptId.' }),
          lines: Type.Array(RunLogLineObject, {
            description: `Oldest first: the attempt's last ${LIMITS.maxLines} lines or ${LIMITS.maxBytes / 1024} KiB, whichever is smaller.`,
          }),
          truncated: Type.Integer({ minimum: 0, description: 'Lines dropped from the front to stay within the bounds.' }),
        },
        { additionalProperties: false },
      ),
      { description: `Oldest attempt first, the newest ${LIMITS.maxAttemptsPerRun} attempts; an attempt that printed nothing is not listed.` },
    ),
  },
  { additionalProperties: false },
);

/** GET /api/tasks/runs/:runId/logs: what each attempt of a run printed. */
export function runLogRoutes(deps: { runLogs: RunLogReader }): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/api/tasks/runs/:runId/logs',
      operationId: 'getTaskRunLogs',
      summary: "What each attempt of a run printed: its worker's standard error, its handler's log lines at info and above",
      description: 'Redacted and bounded per attempt. A run that printed nothing answers `attempts: []`; an unknown run 404.',
      tags: ['tasks'],
      access: { kind: 'protected', role: 'operator', bucket: 'viewer-read' },
      schema: { params: RunIdParams, response: { 200: RunLogsObject } },
      handler: async (ctx: ProtectedContext<unknown, Static<typeof RunIdParams>>) => {
        const logs = await deps.runLogs.read(ctx.params.runId);
        if (!logs) throw notFound(`run ${ctx.params.runId}`);
        return { body: logs };
      },
    },
  ];
}
