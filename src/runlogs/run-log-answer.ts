import Type, { type Static } from 'typebox';
import { DEFAULT_RUN_LOG_LIMITS as LIMITS } from './limits.js';

/*
 * The answer of GET /api/tasks/runs/:runId/logs. The route's response schema and the operator
 * console's types both come from here (no Node APIs, so browser code can import the types).
 */

export const RunLogLineObject = Type.Object(
  {
    at: Type.String({ format: 'date-time', description: 'When the service received the line.' }),
    stream: Type.Union([Type.Literal('stderr'), Type.Literal('stdout'), Type.Literal('log')], {
      description: "`stderr`: the worker's standard error, or that of a project command it runs (a test suite, a build script), live; `stdout`: a project command's standard output, live; `log`: the in-process handler's log (info and above).",
    }),
    line: Type.String({ description: `Redacted (secrets, tokens, keys) and at most ${LIMITS.lineMaxBytes} bytes; a longer line ends with \`…[+N bytes]\`.` }),
  },
  { additionalProperties: false },
);

export const RunLogsObject = Type.Object(
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
      {
        description: `Every attempt that ran, oldest first, the newest ${LIMITS.maxAttemptsPerRun}; an attempt that ran and printed nothing has \`lines: []\`, an attempt that never ran (held, queued, cancelled before it started) is not listed.`,
      },
    ),
  },
  { additionalProperties: false },
);

export type RunLogsAnswer = Static<typeof RunLogsObject>;
