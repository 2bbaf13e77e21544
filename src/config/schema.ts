import Type, { type Static } from 'typebox';
import { AlertsConfigSchema } from './alerts.js';

/** Limit for one rate-limit bucket: `max` requests per `windowSeconds`. */
export const RateLimitSchema = Type.Object(
  { max: Type.Integer({ minimum: 1 }), windowSeconds: Type.Integer({ minimum: 1 }) },
  { additionalProperties: false },
);

/**
 * The most run slots (`concurrency`) one instance takes. A slot of an in-process handler costs an
 * entry in memory; on a shared store more runs at once also means larger claim, admission and
 * final-write batches, so fewer statements per run (docs/performance.md). Worker lanes spawn a
 * process per running attempt: cap those types with `typeConcurrency`.
 */
export const MAX_RUN_SLOTS = 1024;

/** A limit bucket's name: shown on run views and `GET /api/queue`, so plain. */
export const LIMIT_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';

/** One limit bucket of config `limits` (src/store/limit-buckets.ts); load.ts wants at least one cap. */
export const LimitBucketSchema = Type.Object(
  {
    match: Type.Optional(
      Type.Object(
        {
          types: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
          keyPrefix: Type.Optional(Type.String({ maxLength: 200 })),
        },
        { additionalProperties: false },
      ),
    ),
    concurrency: Type.Optional(Type.Integer({ minimum: 1 })),
    perKey: Type.Optional(Type.Integer({ minimum: 1 })),
    rate: Type.Optional(
      Type.Object(
        { max: Type.Integer({ minimum: 1 }), windowSeconds: Type.Integer({ minimum: 1, maximum: 86_400 }) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const RATE_LIMIT_BUCKETS = [
  'health-public',
  'docs-public',
  'proof-public',
  'abuse-guard',
  'viewer-read',
  'operator-write',
  'admin-export',
] as const;
export type RateLimitBucket = (typeof RATE_LIMIT_BUCKETS)[number];

/** The spec's Limits table; config `rateLimits.<bucket>` may override any of them. */
export const DEFAULT_RATE_LIMITS: Record<RateLimitBucket, { max: number; windowSeconds: number }> = {
  'health-public': { max: 1000, windowSeconds: 60 },
  'docs-public': { max: 30, windowSeconds: 60 },
  // Public proof routes have no number in the spec; see docs/decisions.md.
  'proof-public': { max: 120, windowSeconds: 60 },
  'abuse-guard': { max: 300, windowSeconds: 60 },
  'viewer-read': { max: 120, windowSeconds: 60 },
  'operator-write': { max: 30, windowSeconds: 60 },
  'admin-export': { max: 10, windowSeconds: 60 },
};

/**
 * One entry of `approvalPolicy` (keyed by task type or `default`): who decides a held run of the
 * type and what happens when nobody does. docs/approvals-and-reruns.md.
 */
export const ApprovalPolicyEntrySchema = Type.Object(
  {
    approverRole: Type.Optional(Type.Union([Type.Literal('operator'), Type.Literal('admin')])),
    allowSelfApproval: Type.Optional(Type.Boolean()),
    // A year at most; fractions of a minute are allowed (a short expiry is what tests and drills use).
    expiresAfterMinutes: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 525_600 })),
    onExpiry: Type.Optional(Type.Union([Type.Literal('reject'), Type.Literal('escalate')])),
    // Distinct actors whose approvals admit the replay. Ten at most: a quorum larger than a
    // team's approvers would hold every run until it expires.
    requiredApprovals: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
    // Only keys carrying one of these groups (API_KEY_ROTATION `groups`) may decide; empty or absent: any key of approverRole.
    approverGroups: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50, uniqueItems: true })),
  },
  { additionalProperties: false },
);
export type ApprovalPolicyEntry = Static<typeof ApprovalPolicyEntrySchema>;

/** Everything the JSON config file may hold. Secrets (keys, webhook secret) come from env only. */
export const ConfigFileSchema = Type.Object(
  {
    port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
    host: Type.Optional(Type.String({ minLength: 1 })),
    metricsPort: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
    metricsEnabled: Type.Optional(Type.Boolean()),
    logLevel: Type.Optional(Type.String()),
    fastStart: Type.Optional(Type.Boolean()),
    stateFile: Type.Optional(Type.String({ minLength: 1 })),
    workspaceRoot: Type.Optional(Type.String({ minLength: 1 })),
    docsPath: Type.Optional(Type.String({ minLength: 1 })),
    logsDir: Type.Optional(Type.String({ minLength: 1 })),
    deployBaseDir: Type.Optional(Type.String({ minLength: 1 })),
    rssConfigPath: Type.Optional(Type.String({ minLength: 1 })),
    /** rss-sweep may fetch feeds on loopback and private addresses (src/net/guarded-fetch.ts). */
    rssAllowPrivateHosts: Type.Optional(Type.Boolean()),
    communityDraftsPath: Type.Optional(Type.String({ minLength: 1 })),
    knowledgePackDir: Type.Optional(Type.String({ minLength: 1 })),
    agentsDir: Type.Optional(Type.String({ minLength: 1 })),
    /** Operator task types, one folder each with its task-type.json (docs/task-types.md "Write your own task type"). */
    taskTypesDir: Type.Optional(Type.String({ minLength: 1 })),
    notes: Type.Optional(Type.String()),
    databaseUrl: Type.Optional(Type.String()),
    kvStoreUrl: Type.Optional(Type.String()),
    kvKeyPrefix: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    trustProxy: Type.Optional(Type.Boolean()),
    /** False: viewer responses (viewer keys and scoped tokens) carry no run payloads or results. */
    viewerSeesPayloads: Type.Optional(Type.Boolean()),
    corsAllowedOrigins: Type.Optional(Type.Array(Type.String())),
    corsAllowedMethods: Type.Optional(Type.Array(Type.String())),
    corsAllowedHeaders: Type.Optional(Type.Array(Type.String())),
    corsExposedHeaders: Type.Optional(Type.Array(Type.String())),
    corsAllowCredentials: Type.Optional(Type.Boolean()),
    corsMaxAgeSeconds: Type.Optional(Type.Integer({ minimum: 0 })),
    rateLimits: Type.Optional(Type.Record(Type.String(), RateLimitSchema)),
    maxBodyBytes: Type.Optional(Type.Integer({ minimum: 1024 })),
    cache: Type.Optional(
      Type.Object(
        {
          maxEntries: Type.Optional(Type.Integer({ minimum: 1 })),
          maxBytes: Type.Optional(Type.Integer({ minimum: 1024 })),
          publicMaxAgeSeconds: Type.Optional(Type.Integer({ minimum: 0 })),
          protectedMaxAgeSeconds: Type.Optional(Type.Integer({ minimum: 0 })),
        },
        { additionalProperties: false },
      ),
    ),
    /** The live event streams (docs/events.md). */
    eventStreams: Type.Optional(
      Type.Object(
        {
          maxPerKey: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
          bufferBytes: Type.Optional(Type.Integer({ minimum: 4096, maximum: 64 * 1024 * 1024 })),
          keepaliveSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 3600 })),
        },
        { additionalProperties: false },
      ),
    ),
    // 0: the instance admits and serves but runs nothing (a shared store only; see load.ts).
    concurrency: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_RUN_SLOTS })),
    typeConcurrency: Type.Optional(Type.Record(Type.String(), Type.Integer({ minimum: 1 }))),
    // Limit buckets by name (docs/queue.md): caps on the runs they match, counted across instances.
    limits: Type.Optional(Type.Record(Type.String({ pattern: LIMIT_NAME_PATTERN }), LimitBucketSchema)),
    runRetention: Type.Optional(Type.Integer({ minimum: 10 })),
    workerTimeoutMs: Type.Optional(Type.Integer({ minimum: 100 })),
    runLeaseMs: Type.Optional(Type.Integer({ minimum: 1000 })),
    cancelGraceMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })),
    laneTimeoutsMs: Type.Optional(Type.Record(Type.String(), Type.Integer({ minimum: 100 }))),
    retry: Type.Optional(
      Type.Object(
        {
          maxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 20 })),
          baseDelayMs: Type.Optional(Type.Integer({ minimum: 0 })),
          maxDelayMs: Type.Optional(Type.Integer({ minimum: 0 })),
        },
        { additionalProperties: false },
      ),
    ),
    heartbeatCron: Type.Optional(Type.String()),
    nightlyBatchCron: Type.Optional(Type.String()),
    schedulerEnabled: Type.Optional(Type.Boolean()),
    businessRegistryPath: Type.Optional(Type.String({ minLength: 1 })),
    businessCycleCron: Type.Optional(Type.String()),
    storeFlushIntervalMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    storeCompactAfterEntries: Type.Optional(Type.Integer({ minimum: 10 })),
    digestTargetUrl: Type.Optional(Type.String()),
    /** send-digest may post to a digestTargetUrl on a loopback or private address. */
    digestTargetAllowPrivateHosts: Type.Optional(Type.Boolean()),
    /** CI status of the code host, shown in extended health; off by default. The token comes from env only. */
    codeHostMonitor: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean()),
          apiBaseUrl: Type.Optional(Type.String({ minLength: 1 })),
          repository: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$' })),
          branch: Type.Optional(Type.String({ minLength: 1 })),
          refreshSeconds: Type.Optional(Type.Integer({ minimum: 5 })),
          timeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 60_000 })),
        },
        { additionalProperties: false },
      ),
    ),
    digestTargetFile: Type.Optional(Type.String({ minLength: 1 })),
    communityResponse: Type.Optional(
      Type.Object(
        {
          dailyLlmBudget: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
          dedupeWindowHours: Type.Optional(Type.Integer({ minimum: 1, maximum: 24 * 90 })),
        },
        { additionalProperties: false },
      ),
    ),
    docWatcher: Type.Optional(Type.Boolean()),
    docRepairCooldownMs: Type.Optional(Type.Integer({ minimum: 0 })),
    marketResearch: Type.Optional(
      Type.Object(
        {
          allowPrivateHosts: Type.Optional(Type.Boolean()),
          allowedDomains: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 500 })),
        },
        { additionalProperties: false },
      ),
    ),
    /** Model provider settings (docs/models.md); the key and base URL come from OPENAI_API_KEY / OPENAI_BASE_URL. */
    llm: Type.Optional(
      Type.Object(
        {
          /** The loopback port the workers' model channel listens on; unset (and no range): one the system picks. */
          channelPort: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
          /** Or a range `first-last` it takes the first free port of. */
          channelPortRange: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}-[0-9]{1,5}$' })),
          models: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 40 }), Type.String({ minLength: 1, maxLength: 200 }))),
          prices: Type.Optional(
            Type.Record(
              Type.String({ minLength: 1, maxLength: 200 }),
              Type.Object(
                {
                  inputPerMillionTokensUsd: Type.Number({ minimum: 0 }),
                  outputPerMillionTokensUsd: Type.Number({ minimum: 0 }),
                },
                { additionalProperties: false },
              ),
            ),
          ),
          dailyBudgetUsd: Type.Optional(Type.Number({ minimum: 0 })),
          timeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 600_000 })),
          maxRetries: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
          /** OPENAI_BASE_URL may name a loopback or private address (a local model server). */
          allowPrivateBaseUrl: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
    /** Approval policy by task type or `default`; the task types are checked against the catalog at start. */
    approvalPolicy: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 100 }), ApprovalPolicyEntrySchema)),
    /** Alert rules and the sinks they send to (docs/alerts.md). */
    alerts: Type.Optional(AlertsConfigSchema),
    /** How project code (qa-verification's execute mode, build-refactor's verification) may run. */
    sandbox: Type.Optional(
      Type.Object(
        {
          allowUnsandboxed: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ConfigFile = Static<typeof ConfigFileSchema>;
