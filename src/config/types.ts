import type { RateLimitBucket } from './schema.js';

export type Role = 'viewer' | 'operator' | 'admin';

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

export interface RetryConfig {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
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
  /** Raw state target: an absolute JSON file path, `sql:<absolute path>` or `docdb:<key>`. */
  stateTarget: string;
  /** True when STATE_FILE / stateFile was set explicitly (spawned agents then inherit it). */
  stateOverridden: boolean;
  workspaceRoot: string;
  docsPath: string;
  logsDir: string;
  deployBaseDir: string;
  rssConfigPath: string | null;
  communityDraftsPath: string;
  knowledgePackDir: string;
  agentsDir: string;
  notes: string | null;
  databaseUrl: string | null;
  kvStoreUrl: string | null;
  apiKeys: ApiKeyEntry[];
  webhookSecret: string;
  cors: CorsConfig;
  rateLimits: Record<RateLimitBucket, { max: number; windowSeconds: number }>;
  maxBodyBytes: number;
  cache: CacheConfig;
  concurrency: number;
  typeConcurrency: Record<string, number>;
  runRetention: number;
  workerTimeoutMs: number;
  laneTimeoutsMs: Record<string, number>;
  retry: RetryConfig;
  heartbeatCron: string;
  nightlyBatchCron: string;
  schedulerEnabled: boolean;
  storeFlushIntervalMs: number;
  /** JSON file store: compact once the journal holds this many entries (null: the store's default). */
  storeCompactAfterEntries: number | null;
  digestTargetUrl: string | null;
  /** allowedDomains null: the lane's built-in allowlist (agents/market-research-agent/allowlist.ts). */
  marketResearch: { allowPrivateHosts: boolean; allowedDomains: string[] | null };
}
