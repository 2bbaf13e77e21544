import type { ApprovalPolicyEntry, RateLimitBucket } from './schema.js';
import type { AlertsConfig } from './alerts.js';
import type { LimitBucket } from '../domain/limit-bucket.js';

import type { Role } from '../domain/identity.js';

export type { Role };

/** One configured bearer key. `secret` is the key itself and must never be logged or returned. */
export interface ApiKeyEntry {
  secret: string;
  label: string;
  /** The label without its `:version` suffix; the identity used for rate limits and audit. */
  actor: string;
  version: string | null;
  role: Role;
  expiresAt: Date | null;
  active: boolean;
  /** Approver groups the key belongs to (approvalPolicy.approverGroups); empty when it names none. */
  groups: string[];
}

export interface CorsConfig {
  allowedOrigins: string[];
  allowedMethods: string[];
  allowedHeaders: string[];
  exposedHeaders: string[];
  allowCredentials: boolean;
  maxAgeSeconds: number | null;
}

export interface CacheConfig {
  maxEntries: number;
  maxBytes: number;
  publicMaxAgeSeconds: number;
  protectedMaxAgeSeconds: number;
}

/** The live event streams (docs/events.md). */
export interface EventStreamsConfig {
  /** Streams one key (its actor) may hold open on one instance; one more answers 429. */
  maxPerKey: number;
  /** Bytes a stream's connection may hold unsent before the client counts as not reading and is closed. */
  bufferBytes: number;
  /** Interval of the keepalive comment on every open stream. */
  keepaliveSeconds: number;
}

export interface RetryConfig {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Price of a model per million tokens, in US dollars. */
export interface ModelPrice {
  inputPerMillionTokensUsd: number;
  outputPerMillionTokensUsd: number;
}

/**
 * The model provider (one OpenAI-compatible chat-completions API). apiKey is null for a local
 * server that needs none; baseUrl null means the client library's default. The provider counts as
 * configured when either is set.
 */
export interface LlmConfig {
  /**
   * The loopback ports the workers' model channel may listen on, the first free one taken, and the
   * setting that named them (for messages); absent: a port the system picks.
   */
  channelPorts?: { first: number; last: number; setting: string };
  apiKey: string | null;
  baseUrl: string | null;
  /** Model name per manifest tier (`standard`, `advanced`); a manifest's model.name overrides it. */
  models: Record<string, string>;
  prices: Record<string, ModelPrice>;
  /** Spend allowed per UTC day across every instance; null: no limit. */
  dailyBudgetUsd: number | null;
  timeoutMs: number;
  maxRetries: number;
  /** baseUrl may be a loopback or private address (a local server); otherwise such a provider is refused. */
  allowPrivateBaseUrl: boolean;
}

/** The code host's CI runs API, read by the monitor behind `dependencies.codeHost` of extended health. */
export interface CodeHostMonitorConfig {
  enabled: boolean;
  /** Base URL of the CI runs API; required when enabled. */
  apiBaseUrl: string | null;
  /** `owner/name`; required when enabled. */
  repository: string | null;
  branch: string;
  /** From env CODE_HOST_TOKEN only; never logged or returned. */
  token: string | null;
  refreshSeconds: number;
  timeoutMs: number;
}

/** The validated, fully resolved configuration (absolute paths, defaults applied). */
export interface AppConfig {
  configFile: string | null;
  baseDir: string;
  port: number;
  host: string;
  metricsPort: number;
  metricsEnabled: boolean;
  logLevel: string;
  fastStart: boolean;
  /** Raw state target: an absolute JSON file path, `sql:<absolute path>`, `docdb:<key>` or `postgres` (DATABASE_URL). */
  stateTarget: string;
  /** True when STATE_FILE / stateFile was set explicitly (spawned agents then inherit it). */
  stateOverridden: boolean;
  workspaceRoot: string;
  docsPath: string;
  logsDir: string;
  deployBaseDir: string;
  rssConfigPath: string | null;
  /** rss-sweep may fetch feeds on loopback and private addresses (default false: refused). */
  rssAllowPrivateHosts: boolean;
  communityDraftsPath: string;
  knowledgePackDir: string;
  agentsDir: string;
  /** Operator task types, one folder each (default `<workspaceRoot>/task-types`; may be absent). */
  taskTypesDir: string;
  notes: string | null;
  databaseUrl: string | null;
  kvStoreUrl: string | null;
  /** Prefix of every key in the KV store, so deployments (or test runs) can share one Redis. */
  kvKeyPrefix: string;
  /** Take the client address from X-Forwarded-For (behind the stack's reverse proxy); off: the socket address. */
  trustProxy: boolean;
  apiKeys: ApiKeyEntry[];
  webhookSecret: string;
  /** TOKEN_SIGNING_SECRET: signs scoped tokens and approval links (null: a key derived from webhookSecret). */
  tokenSigningSecret: string | null;
  /** False hides run payloads and results from the viewer role (viewer keys and scoped tokens). */
  viewerSeesPayloads: boolean;
  cors: CorsConfig;
  rateLimits: Record<RateLimitBucket, { max: number; windowSeconds: number }>;
  maxBodyBytes: number;
  cache: CacheConfig;
  eventStreams: EventStreamsConfig;
  concurrency: number;
  typeConcurrency: Record<string, number>;
  /** Limit buckets (config `limits`, docs/queue.md), in config order. */
  limits: LimitBucket[];
  runRetention: number;
  workerTimeoutMs: number;
  /** Claim lease of a running attempt on a shared store; an instance silent this long loses its runs to another. */
  runLeaseMs: number;
  /** A cancelled running worker's process group gets SIGTERM, then SIGKILL this long after (docs/run-control.md). */
  cancelGraceMs: number;
  laneTimeoutsMs: Record<string, number>;
  retry: RetryConfig;
  heartbeatCron: string;
  nightlyBatchCron: string;
  schedulerEnabled: boolean;
  /** The business registry file (schema 2.0.1) the business-value planner reads. */
  businessRegistryPath: string;
  /** Cadence of the automatic business cycle. */
  businessCycleCron: string;
  storeFlushIntervalMs: number;
  /** JSON file store: compact once the journal holds this many entries (null: the store's default). */
  storeCompactAfterEntries: number | null;
  digestTargetUrl: string | null;
  /** send-digest may post to a target on a loopback or private address (default false: refused). */
  digestTargetAllowPrivateHosts: boolean;
  /** Absolute JSONL file each digest is appended to (a second, local notification target). */
  digestTargetFile: string | null;
  /** community-response: drafts per UTC day (the helper's daily LLM budget) and the per-item dedupe window. */
  communityResponse: { dailyLlmBudget: number; dedupeWindowHours: number };
  /** Model provider settings (src/models/, docs/models.md). */
  llm: LlmConfig;
  /** Watch docsPath and feed doc-change tasks (off in tests unless a test turns it on). */
  docWatcher: boolean;
  /** A doc set that was repaired is not repaired again before this much time has passed. */
  docRepairCooldownMs: number;
  /** allowedDomains null: the lane's built-in allowlist (agents/market-research-agent/allowlist.ts). */
  codeHostMonitor: CodeHostMonitorConfig;
  marketResearch: { allowPrivateHosts: boolean; allowedDomains: string[] | null };
  /**
   * Project code (qa-verification's execute mode, build-refactor's verification) runs in a
   * bubblewrap sandbox; allowUnsandboxed lets it run without one on a host that has none
   * (default false: those runs are refused). docs/workers.md, "Project code".
   */
  sandbox: { allowUnsandboxed: boolean };
  /**
   * Approval policy as configured, keyed by task type or `default` (empty: today's behaviour,
   * operators decide, self-approval allowed, no expiry). Resolved by src/runtime/approval-policy.ts,
   * which also refuses a key that is not a task type of the catalog.
   */
  approvalPolicy: Record<string, ApprovalPolicyEntry>;
  /** Alert rules and sinks, their webhook secrets read from the environment (docs/alerts.md). */
  alerts: AlertsConfig;
}
