import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { Compile } from 'typebox/compile';
import { resolveAlertsConfig } from './alerts.js';
import { configError, missingSecret } from './errors.js';
import { parseApiKeys } from './keys.js';
import { packageRoot } from './package-root.js';
import type { Static } from 'typebox';
import { ConfigFileSchema, DEFAULT_RATE_LIMITS, RATE_LIMIT_BUCKETS, type ConfigFile, LIMIT_NAME_PATTERN, type LimitBucketSchema, type RateLimitBucket } from './schema.js';
import type { LimitBucket } from '../domain/limit-bucket.js';
import { POSTGRES_TARGET, isPostgresUrl, isSharedTarget } from './store-targets.js';
import type { AppConfig } from './types.js';

const configFileValidator = Compile(ConfigFileSchema);

export const DEFAULT_CORS_METHODS = ['GET', 'POST', 'OPTIONS'];
export const DEFAULT_CORS_HEADERS = ['Authorization', 'Content-Type'];
export const DEFAULT_CORS_EXPOSED = [
  'X-Request-Id',
  'X-API-Key-Expires',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'Retry-After',
];

type Env = Record<string, string | undefined>;

function list(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function bool(name: string, value: string): boolean {
  if (/^(true|1|yes|on)$/i.test(value)) return true;
  if (/^(false|0|no|off)$/i.test(value)) return false;
  throw configError(`${name} must be true or false`);
}

function int(name: string, value: string): number {
  if (!/^\d+$/.test(value.trim())) throw configError(`${name} must be a non-negative integer`);
  return Number(value);
}

/** Env variables that override config file keys; each names its key and how to parse it. */
const ENV_OVERRIDES: Array<[string, keyof ConfigFile, (name: string, v: string) => unknown]> = [
  ['PORT', 'port', int],
  ['HOST', 'host', (_n, v) => v],
  ['METRICS_PORT', 'metricsPort', int],
  ['PROMETHEUS_ENABLED', 'metricsEnabled', bool],
  ['LOG_LEVEL', 'logLevel', (_n, v) => v],
  ['ORCHESTRATOR_FAST_START', 'fastStart', bool],
  ['STATE_FILE', 'stateFile', (_n, v) => v],
  ['WORKSPACE_ROOT', 'workspaceRoot', (_n, v) => v],
  ['DATABASE_URL', 'databaseUrl', (_n, v) => v],
  ['KV_STORE_URL', 'kvStoreUrl', (_n, v) => v],
  ['KV_KEY_PREFIX', 'kvKeyPrefix', (_n, v) => v],
  ['TRUST_PROXY', 'trustProxy', bool],
  ['VIEWER_SEES_PAYLOADS', 'viewerSeesPayloads', bool],
  ['ORCHESTRATOR_CORS_ALLOWED_ORIGINS', 'corsAllowedOrigins', (_n, v) => list(v)],
  ['ORCHESTRATOR_CORS_ALLOWED_METHODS', 'corsAllowedMethods', (_n, v) => list(v)],
  ['ORCHESTRATOR_CORS_ALLOWED_HEADERS', 'corsAllowedHeaders', (_n, v) => list(v)],
  ['ORCHESTRATOR_CORS_EXPOSED_HEADERS', 'corsExposedHeaders', (_n, v) => list(v)],
  ['ORCHESTRATOR_CORS_ALLOW_CREDENTIALS', 'corsAllowCredentials', bool],
  ['ORCHESTRATOR_CORS_MAX_AGE_SECONDS', 'corsMaxAgeSeconds', int],
  ['ORCHESTRATOR_CONCURRENCY', 'concurrency', int],
  ['ORCHESTRATOR_SCHEDULER_ENABLED', 'schedulerEnabled', bool],
  ['ORCHESTRATOR_DOC_WATCHER', 'docWatcher', bool],
];

/** Env overrides of `codeHostMonitor.*` (the token has no config-file key: env only). */
const CODE_HOST_ENV: Array<[string, string, (name: string, v: string) => unknown]> = [
  ['CODE_HOST_MONITOR_ENABLED', 'enabled', bool],
  ['CODE_HOST_API_URL', 'apiBaseUrl', (_n, v) => v],
  ['CODE_HOST_REPOSITORY', 'repository', (_n, v) => v],
  ['CODE_HOST_BRANCH', 'branch', (_n, v) => v],
];

function readConfigFile(env: Env, cwd: string): { path: string | null; data: ConfigFile } {
  const explicit = env.ORCHESTRATOR_CONFIG;
  const path = explicit ? resolve(cwd, explicit) : resolve(cwd, 'orchestrator.config.json');
  if (!existsSync(path)) {
    if (explicit) throw configError(`ORCHESTRATOR_CONFIG file not found: ${path}`);
    return { path: null, data: {} };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw configError(`config file ${path} is not valid JSON: ${(err as Error).message}`);
  }
  return { path, data: parsed as ConfigFile };
}

function validate(data: unknown, source: string): ConfigFile {
  if (configFileValidator.Check(data)) return data;
  const problems = [...configFileValidator.Errors(data)]
    .slice(0, 5)
    .map((e) => `${e.instancePath || '/'} ${e.message}`)
    .join('; ');
  throw configError(`invalid configuration (${source}): ${problems}`);
}

/**
 * Loads the JSON config file (ORCHESTRATOR_CONFIG, else ./orchestrator.config.json when present),
 * applies env overrides, validates the result against one schema and resolves every path.
 * Throws an `invalid_config` DomainError (src/config/errors.ts); the caller turns it into `fatal:` and exit 1.
 */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): AppConfig {
  const file = readConfigFile(env, cwd);
  const merged: Record<string, unknown> = { ...(file.data as Record<string, unknown>) };
  for (const [name, key, parse] of ENV_OVERRIDES) {
    const value = env[name];
    if (value !== undefined && value !== '') merged[key] = parse(name, value);
  }
  const codeHost: Record<string, unknown> = { ...((merged.codeHostMonitor as Record<string, unknown> | undefined) ?? {}) };
  for (const [name, key, parse] of CODE_HOST_ENV) {
    const value = env[name];
    if (value !== undefined && value !== '') codeHost[key] = parse(name, value);
  }
  if (Object.keys(codeHost).length > 0) merged.codeHostMonitor = codeHost;
  const cfg = validate(merged, file.path ?? 'defaults and environment');
  const codeHostMonitor = resolveCodeHostMonitor(cfg, env);

  const apiKeys = parseApiKeys(env.API_KEY_ROTATION, env.API_KEY);
  if (apiKeys.length === 0) throw missingSecret('API_KEY');
  const webhookSecret = env.WEBHOOK_SECRET;
  if (!webhookSecret) throw missingSecret('WEBHOOK_SECRET');

  const baseDir = file.path ? dirname(file.path) : cwd;
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(baseDir, p));
  // DATABASE_URL=postgres://… selects the shared PostgreSQL store unless STATE_FILE names another target.
  const stateRaw = cfg.stateFile ?? (isPostgresUrl(cfg.databaseUrl) ? POSTGRES_TARGET : './orchestrator/data/orchestrator-state.json');
  let stateTarget: string;
  if (stateRaw.startsWith('sql:')) stateTarget = `sql:${abs(stateRaw.slice(4))}`;
  else if (stateRaw.startsWith('docdb:') || stateRaw === POSTGRES_TARGET) stateTarget = stateRaw;
  else stateTarget = abs(stateRaw);

  // An instance without run slots leaves its admitted runs to the other instances of its fleet;
  // on a store no other instance opens nothing would ever run them.
  if (cfg.concurrency === 0 && !isSharedTarget(stateTarget)) {
    throw configError(`concurrency 0 (an instance that admits but runs nothing) needs the shared PostgreSQL store, where other instances run the runs; state target here: ${stateTarget}`);
  }

  const workspaceRoot = abs(cfg.workspaceRoot ?? './workspace');
  const logsDir = abs(cfg.logsDir ?? './logs');
  const rateLimits = { ...DEFAULT_RATE_LIMITS };
  for (const [bucket, limit] of Object.entries(cfg.rateLimits ?? {})) {
    if (!(RATE_LIMIT_BUCKETS as readonly string[]).includes(bucket)) {
      throw configError(`rateLimits.${bucket} is not a known bucket (${RATE_LIMIT_BUCKETS.join(', ')})`);
    }
    rateLimits[bucket as RateLimitBucket] = limit;
  }

  const limits = limitBuckets(cfg.limits ?? {});

  return {
    configFile: file.path,
    baseDir,
    port: cfg.port ?? 3000,
    host: cfg.host ?? '127.0.0.1',
    metricsPort: cfg.metricsPort ?? 9464,
    metricsEnabled: cfg.metricsEnabled ?? true,
    logLevel: cfg.logLevel ?? 'info',
    fastStart: cfg.fastStart ?? false,
    stateTarget,
    stateOverridden: cfg.stateFile !== undefined,
    workspaceRoot,
    docsPath: abs(cfg.docsPath ?? join(workspaceRoot, 'docs')),
    logsDir,
    deployBaseDir: abs(cfg.deployBaseDir ?? join(workspaceRoot, 'deployments')),
    rssConfigPath: cfg.rssConfigPath ? abs(cfg.rssConfigPath) : null,
    rssAllowPrivateHosts: cfg.rssAllowPrivateHosts ?? false,
    communityDraftsPath: abs(cfg.communityDraftsPath ?? join(logsDir, 'community-drafts.jsonl')),
    knowledgePackDir: abs(cfg.knowledgePackDir ?? join(logsDir, 'knowledge-packs')),
    agentsDir: cfg.agentsDir ? abs(cfg.agentsDir) : join(packageRoot(), 'agents'),
    taskTypesDir: abs(cfg.taskTypesDir ?? join(workspaceRoot, 'task-types')),
    notes: cfg.notes ?? null,
    databaseUrl: cfg.databaseUrl ?? null,
    kvStoreUrl: cfg.kvStoreUrl ?? null,
    kvKeyPrefix: cfg.kvKeyPrefix ?? 'orch:',
    trustProxy: cfg.trustProxy ?? false,
    viewerSeesPayloads: cfg.viewerSeesPayloads ?? true,
    apiKeys,
    webhookSecret,
    tokenSigningSecret: env.TOKEN_SIGNING_SECRET ? env.TOKEN_SIGNING_SECRET : null,
    cors: {
      allowedOrigins: cfg.corsAllowedOrigins ?? [],
      allowedMethods: cfg.corsAllowedMethods ?? DEFAULT_CORS_METHODS,
      allowedHeaders: cfg.corsAllowedHeaders ?? DEFAULT_CORS_HEADERS,
      exposedHeaders: cfg.corsExposedHeaders ?? DEFAULT_CORS_EXPOSED,
      allowCredentials: cfg.corsAllowCredentials ?? false,
      maxAgeSeconds: cfg.corsMaxAgeSeconds ?? null,
    },
    rateLimits,
    maxBodyBytes: cfg.maxBodyBytes ?? 1024 * 1024,
    cache: {
      maxEntries: cfg.cache?.maxEntries ?? 2000,
      maxBytes: cfg.cache?.maxBytes ?? 32 * 1024 * 1024,
      publicMaxAgeSeconds: cfg.cache?.publicMaxAgeSeconds ?? 30,
      protectedMaxAgeSeconds: cfg.cache?.protectedMaxAgeSeconds ?? 15,
    },
    eventStreams: {
      maxPerKey: cfg.eventStreams?.maxPerKey ?? 20,
      bufferBytes: cfg.eventStreams?.bufferBytes ?? 1024 * 1024,
      keepaliveSeconds: cfg.eventStreams?.keepaliveSeconds ?? 15,
    },
    concurrency: cfg.concurrency ?? 2,
    typeConcurrency: cfg.typeConcurrency ?? {},
    limits,
    runRetention: cfg.runRetention ?? 5000,
    workerTimeoutMs: cfg.workerTimeoutMs ?? 120_000,
    runLeaseMs: cfg.runLeaseMs ?? 60_000,
    cancelGraceMs: cfg.cancelGraceMs ?? 10_000,
    laneTimeoutsMs: cfg.laneTimeoutsMs ?? {},
    retry: {
      maxAttempts: cfg.retry?.maxAttempts ?? 3,
      baseDelayMs: cfg.retry?.baseDelayMs ?? 30_000,
      maxDelayMs: cfg.retry?.maxDelayMs ?? 15 * 60_000,
    },
    heartbeatCron: cfg.heartbeatCron ?? '*/5 * * * *',
    nightlyBatchCron: cfg.nightlyBatchCron ?? '0 2 * * *',
    schedulerEnabled: cfg.schedulerEnabled ?? true,
    businessRegistryPath: abs(cfg.businessRegistryPath ?? join(workspaceRoot, 'business', 'registry.json')),
    businessCycleCron: cfg.businessCycleCron ?? '17 */6 * * *',
    storeFlushIntervalMs: cfg.storeFlushIntervalMs ?? 0,
    storeCompactAfterEntries: cfg.storeCompactAfterEntries ?? null,
    digestTargetUrl: cfg.digestTargetUrl ?? null,
    digestTargetAllowPrivateHosts: cfg.digestTargetAllowPrivateHosts ?? false,
    codeHostMonitor,
    digestTargetFile: cfg.digestTargetFile ? abs(cfg.digestTargetFile) : null,
    communityResponse: {
      dailyLlmBudget: cfg.communityResponse?.dailyLlmBudget ?? 50,
      dedupeWindowHours: cfg.communityResponse?.dedupeWindowHours ?? 168,
    },
    llm: {
      channelPorts: resolveChannelPorts(cfg),
      apiKey: env.OPENAI_API_KEY ? env.OPENAI_API_KEY : null,
      baseUrl: env.OPENAI_BASE_URL ? env.OPENAI_BASE_URL : null,
      models: cfg.llm?.models ?? {},
      prices: cfg.llm?.prices ?? {},
      dailyBudgetUsd: cfg.llm?.dailyBudgetUsd ?? null,
      timeoutMs: cfg.llm?.timeoutMs ?? 30_000,
      maxRetries: cfg.llm?.maxRetries ?? 2,
      allowPrivateBaseUrl: cfg.llm?.allowPrivateBaseUrl ?? false,
    },
    docWatcher: cfg.docWatcher ?? true,
    docRepairCooldownMs: cfg.docRepairCooldownMs ?? 10 * 60_000,
    marketResearch: {
      allowPrivateHosts: cfg.marketResearch?.allowPrivateHosts ?? false,
      allowedDomains: cfg.marketResearch?.allowedDomains ?? null,
    },
    sandbox: {
      allowUnsandboxed: cfg.sandbox?.allowUnsandboxed ?? false,
    },
    approvalPolicy: cfg.approvalPolicy ?? {},
    alerts: resolveAlertsConfig(cfg.alerts, env),
  };
}

/** The model channel's ports (llm.channelPort or llm.channelPortRange, not both); undefined: the system picks one. */
function resolveChannelPorts(cfg: ConfigFile): AppConfig['llm']['channelPorts'] {
  const { channelPort, channelPortRange } = cfg.llm ?? {};
  if (channelPort !== undefined && channelPortRange !== undefined) throw configError('llm.channelPort and llm.channelPortRange are both set; set one');
  if (channelPort !== undefined) return { first: channelPort, last: channelPort, setting: `llm.channelPort ${channelPort}` };
  if (channelPortRange === undefined) return undefined;
  const [first, last] = channelPortRange.split('-').map(Number) as [number, number];
  if (first < 1 || last > 65535 || first > last) {
    throw configError(`llm.channelPortRange must be "first-last" with 1 <= first <= last <= 65535, not "${channelPortRange}"`);
  }
  return { first, last, setting: `llm.channelPortRange ${channelPortRange}` };
}

/** The code-host monitor settings; enabled without a base URL or repository is a start-up error. */
function resolveCodeHostMonitor(cfg: ConfigFile, env: Env): AppConfig['codeHostMonitor'] {
  const c = cfg.codeHostMonitor ?? {};
  const enabled = c.enabled ?? false;
  if (enabled && (!c.apiBaseUrl || !c.repository)) {
    throw configError('codeHostMonitor.enabled needs apiBaseUrl and repository (CODE_HOST_API_URL, CODE_HOST_REPOSITORY)');
  }
  if (c.apiBaseUrl !== undefined && !/^https?:\/\//.test(c.apiBaseUrl)) {
    throw configError('codeHostMonitor.apiBaseUrl must be an http(s) URL');
  }
  return {
    enabled,
    apiBaseUrl: c.apiBaseUrl ?? null,
    repository: c.repository ?? null,
    branch: c.branch ?? 'main',
    token: env.CODE_HOST_TOKEN ? env.CODE_HOST_TOKEN : null,
    refreshSeconds: c.refreshSeconds ?? 60,
    timeoutMs: c.timeoutMs ?? 5000,
  };
}

/**
 * Config `limits` read again from the config file the service started with (POST
 * /api/limits/reload, SIGHUP: docs/queue.md). The whole file is checked as at start; a problem is
 * an `invalid_config` error and the caller keeps the limits it has. Env overrides name no limit.
 */
export function readLimits(configFile: string | null): LimitBucket[] {
  if (configFile === null) return [];
  if (!existsSync(configFile)) throw configError(`config file ${configFile} is gone: the limits stay as they are`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(configFile, 'utf8'));
  } catch (err) {
    throw configError(`config file ${configFile} is not valid JSON: ${(err as Error).message}`);
  }
  return limitBuckets(validate(parsed, configFile).limits ?? {});
}

/** Config `limits` as the claims take them: named buckets, each with at least one cap. */
function limitBuckets(limits: Record<string, Static<typeof LimitBucketSchema>>): LimitBucket[] {
  return Object.entries(limits).map(([name, bucket]) => {
    // The record schema's key pattern admits other keys as extra properties: the name is checked here.
    if (!new RegExp(LIMIT_NAME_PATTERN).test(name)) throw configError(`limits.${name}: a bucket name is letters, digits, '.', '_', '-' (at most 64)`);
    if (bucket.concurrency === undefined && bucket.perKey === undefined && bucket.rate === undefined) {
      throw configError(`limits.${name} caps nothing: give it concurrency, perKey or rate`);
    }
    return { name, match: bucket.match ?? {}, ...bucket };
  });
}
