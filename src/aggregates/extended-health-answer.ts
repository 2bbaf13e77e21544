import Type, { type Static, type TSchema } from 'typebox';

/*
 * The answer of GET /api/health/extended. The route's response schema and the operator
 * console's types both come from here; no Node APIs, so browser code imports it.
 */

export const Str = Type.String();
export const NStr = Type.Union([Type.String(), Type.Null()]);
export const Int = Type.Integer({ minimum: 0 });
export const NInt = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]);
export const NNum = Type.Union([Type.Number(), Type.Null()]);
export const Obj = <P extends Record<string, TSchema>>(props: P, description?: string) =>
  Type.Object(props, { additionalProperties: true, ...(description ? { description } : {}) });
export const Unavailable = { unavailableReason: Type.Union([Type.String(), Type.Null()], { description: 'null when the figures are real; else why they are null' }) };

export const BySeverity = Obj({ critical: Int, warning: Int, info: Int });

const Persistence = Obj({
  status: Type.Union([Type.Literal('healthy'), Type.Literal('degraded'), Type.Literal('down')]),
  database: Obj({ mode: Str, target: Str, status: Str, detail: Str }),
  collections: Type.Record(Type.String(), Type.Integer({ minimum: 0 })),
  coordination: Obj({ status: Str, store: Str, redisConfigured: Type.Boolean(), redisReachable: Type.Boolean(), detail: Str }),
});

const CodeHost = Obj(
  {
    status: Type.Enum(['disabled', 'pending', 'passing', 'failing', 'running', 'no-runs', 'unavailable']),
    summary: Str,
    repository: NStr,
    branch: NStr,
    latestRun: Obj({ workflowName: NStr, conclusion: NStr, url: NStr }),
    checkedAt: NStr,
  },
  'CI status of the configured repository and branch; `disabled` unless the code-host monitor is on',
);

/** Model accounting of the newest finished runs (src/aggregates/accounting-rollup.ts), shared by dashboard and extended health. */
export const AccountingSchema = Obj({
  windowRuns: Int,
  totalCostUsd: Type.Number(),
  currentBudget: Obj({ limitUsd: NNum, remainingUsd: NNum }),
  meteredRuns: Int,
  unmeteredRuns: Int,
  modelCalls: Int,
  tokens: Obj({ inputTokens: Int, outputTokens: Int, totalTokens: Int }),
  averageLatencyMs: NNum,
  byModel: Type.Array(
    Obj({
      model: Str,
      runs: Int,
      metered: Type.Boolean(),
      calls: Int,
      failedCalls: Int,
      costUsd: Type.Number(),
      inputTokens: Int,
      outputTokens: Int,
      totalTokens: Int,
      averageLatencyMs: NNum,
    }),
  ),
  communityHelperBudget: Type.Union([Obj({ runId: Str, at: Str }), Type.Null()]),
});

export const ExtendedHealthSchema = Obj({
  status: Type.Union([Type.Literal('healthy'), Type.Literal('degraded'), Type.Literal('critical')]),
  statusReasons: Type.Array(Str),
  checkedAt: Str,
  controlPlane: Obj({
    routing: Obj({ status: Str, lanesWithoutSpawnableAgent: Type.Array(Str) }),
    queue: Obj({ queued: Int, processing: Int, held: Int, retrying: Int }),
  }),
  workers: Obj({
    declaredAgents: Int,
    spawnedWorkerCapableCount: Int,
    serviceExpectedCount: Int,
    serviceAvailableCount: Int,
    serviceInstalledCount: Int,
    serviceRunningCount: Int,
    serviceExpectedGapCount: Int,
    serviceOperationalCount: Int,
  }),
  repairs: Obj({ activeCount: NInt, verifiedCount: NInt, failedCount: NInt, ...Unavailable }),
  accounting: AccountingSchema,
  dependencies: Obj({
    persistence: Persistence,
    knowledge: Obj({ indexedEntries: NInt, conceptCount: NInt, ...Unavailable }),
    codeHost: CodeHost,
  }),
  truthLayers: Obj({
    configured: Obj({ status: Str, summary: Str }),
    observed: Obj({ status: Str, summary: Str, serviceMode: Str }),
  }),
  incidents: Obj({ overallStatus: Str, openCount: Int, activeCount: Int, bySeverity: BySeverity }),
});
export type ExtendedHealth = Static<typeof ExtendedHealthSchema>;
