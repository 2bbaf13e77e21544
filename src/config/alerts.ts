import Type, { type Static } from 'typebox';
import { configError } from './errors.js';

/**
 * Config `alerts` (docs/alerts.md): named sinks and the rules that send to them. A rule matches
 * exactly one condition; its secret-bearing sinks name the environment variable holding the
 * secret, so the file holds none.
 */
const RetrySchema = Type.Object(
  {
    maxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
    baseDelayMs: Type.Optional(Type.Integer({ minimum: 10, maximum: 3_600_000 })),
    maxDelayMs: Type.Optional(Type.Integer({ minimum: 10, maximum: 86_400_000 })),
  },
  { additionalProperties: false },
);

const sinkCommon = {
  url: Type.String({ minLength: 1, maxLength: 2000, pattern: '^https?://' }),
  /** The receiver may be on loopback or a private network (default false: refused). */
  allowPrivate: Type.Optional(Type.Boolean()),
  timeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 120_000 })),
  retry: Type.Optional(RetrySchema),
};

const WebhookSinkSchema = Type.Object(
  { kind: Type.Literal('webhook'), ...sinkCommon, secretEnv: Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }) },
  { additionalProperties: false },
);
const AlertmanagerSinkSchema = Type.Object({ kind: Type.Literal('alertmanager'), ...sinkCommon }, { additionalProperties: false });
/** The `/orch` bridge's chat channel: the bridge's `/notify` URL, its signing secret, the channel it posts to. */
const ChatSinkSchema = Type.Object(
  {
    kind: Type.Literal('chat'),
    ...sinkCommon,
    secretEnv: Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }),
    channel: Type.String({ minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: false },
);

const RuleMatchSchema = Type.Object(
  {
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    status: Type.Optional(Type.Union([Type.Literal('failed'), Type.Literal('cancelled'), Type.Literal('success')])),
    finalFailureOnly: Type.Optional(Type.Boolean()),
    runningLongerThanMinutes: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 525_600 })),
    approvalExpiringWithinMinutes: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 525_600 })),
    approvalPending: Type.Optional(Type.Literal(true)),
    oldestPendingOlderThanSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 31_536_000 })),
    incident: Type.Optional(Type.Union([Type.Literal('opened'), Type.Literal('escalated')])),
  },
  { additionalProperties: false },
);

const RuleSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.-]+$' }),
    match: RuleMatchSchema,
    severity: Type.Optional(Type.Union([Type.Literal('critical'), Type.Literal('warning'), Type.Literal('info')])),
    dedupeWindowSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 604_800 })),
    sinks: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 10 }),
  },
  { additionalProperties: false },
);

export const AlertsConfigSchema = Type.Object(
  {
    evaluateEverySeconds: Type.Optional(Type.Number({ minimum: 0.05, maximum: 3600 })),
    deliverEverySeconds: Type.Optional(Type.Number({ minimum: 0.05, maximum: 3600 })),
    sinks: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.-]+$' }), Type.Union([WebhookSinkSchema, AlertmanagerSinkSchema, ChatSinkSchema]))),
    rules: Type.Optional(Type.Array(RuleSchema, { maxItems: 200 })),
    approvalLinks: Type.Optional(Type.Boolean({ description: 'false: approval notices carry the approve page only, no signed links (default true)' })),
    consoleUrl: Type.Optional(Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2000, description: 'the origin people reach the console at, for links in messages' })),
  },
  { additionalProperties: false },
);
export type AlertsConfigFile = Static<typeof AlertsConfigSchema>;
export type AlertRuleMatch = Static<typeof RuleMatchSchema>;

export interface SinkRetry {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

interface ResolvedSinkCommon {
  name: string;
  url: string;
  allowPrivate: boolean;
  timeoutMs: number;
  retry: SinkRetry;
}
/** A webhook sink with its secret read from the environment at start (never logged nor shown). */
export type AlertSinkConfig =
  | (ResolvedSinkCommon & { kind: 'webhook'; secretEnv: string; secret: string })
  | (ResolvedSinkCommon & { kind: 'alertmanager' })
  | (ResolvedSinkCommon & { kind: 'chat'; secretEnv: string; secret: string; channel: string });

export interface AlertRule {
  id: string;
  match: AlertRuleMatch;
  severity: 'critical' | 'warning' | 'info';
  dedupeWindowSeconds: number;
  sinks: string[];
}

export interface AlertsConfig {
  evaluateEveryMs: number;
  deliverEveryMs: number;
  sinks: Record<string, AlertSinkConfig>;
  rules: AlertRule[];
  /** Whether approval notices to webhook and chat sinks carry signed approval links (docs/alerts.md). */
  approvalLinks: boolean;
  /** The origin links in messages start with; null: they are paths (`/operator/...`). */
  consoleUrl: string | null;
}

/** The conditions a rule may match; a rule names exactly one. */
const CONDITION_KEYS = ['status', 'runningLongerThanMinutes', 'approvalExpiringWithinMinutes', 'approvalPending', 'oldestPendingOlderThanSeconds', 'incident'] as const;

const DEFAULT_RETRY: SinkRetry = { maxAttempts: 8, baseDelayMs: 1000, maxDelayMs: 300_000 };

function checkRule(rule: AlertsConfigFile['rules'] extends Array<infer R> | undefined ? R : never, sinks: Record<string, unknown>): void {
  const where = `alerts.rules "${rule.id}"`;
  const conditions = CONDITION_KEYS.filter((key) => rule.match[key] !== undefined);
  if (conditions.length !== 1) {
    throw configError(`${where}: match needs exactly one of ${CONDITION_KEYS.join(', ')} (found ${conditions.length === 0 ? 'none' : conditions.join(', ')})`);
  }
  if (rule.match.finalFailureOnly !== undefined && rule.match.status !== 'failed') throw configError(`${where}: finalFailureOnly goes with status "failed"`);
  if (rule.match.incident !== undefined && rule.match.type !== undefined) throw configError(`${where}: an incident rule matches no task type`);
  for (const sink of rule.sinks) {
    if (!Object.hasOwn(sinks, sink)) throw configError(`${where}: sink "${sink}" is not in alerts.sinks`);
  }
}

/** Checks the rules against the sinks and reads each webhook secret from `env`; a problem stops the start. */
export function resolveAlertsConfig(file: AlertsConfigFile | undefined, env: Record<string, string | undefined>): AlertsConfig {
  const fileSinks = file?.sinks ?? {};
  const sinks: Record<string, AlertSinkConfig> = {};
  for (const [name, sink] of Object.entries(fileSinks)) {
    const common: ResolvedSinkCommon = {
      name,
      url: sink.url,
      allowPrivate: sink.allowPrivate ?? false,
      timeoutMs: sink.timeoutMs ?? 5000,
      retry: { ...DEFAULT_RETRY, ...sink.retry },
    };
    if (sink.kind === 'webhook' || sink.kind === 'chat') {
      const secret = Object.hasOwn(env, sink.secretEnv) ? env[sink.secretEnv] : undefined;
      if (!secret) throw configError(`alerts.sinks "${name}": ${sink.secretEnv} (its secretEnv) is not set`);
      sinks[name] =
        sink.kind === 'chat'
          ? { ...common, kind: 'chat', secretEnv: sink.secretEnv, secret, channel: sink.channel }
          : { ...common, kind: 'webhook', secretEnv: sink.secretEnv, secret };
    } else {
      sinks[name] = { ...common, kind: 'alertmanager' };
    }
  }
  const rules = file?.rules ?? [];
  const ids = new Set<string>();
  for (const rule of rules) {
    if (ids.has(rule.id)) throw configError(`alerts.rules: id "${rule.id}" is used twice`);
    ids.add(rule.id);
    checkRule(rule, sinks);
  }
  return {
    evaluateEveryMs: Math.round((file?.evaluateEverySeconds ?? 30) * 1000),
    deliverEveryMs: Math.round((file?.deliverEverySeconds ?? 2) * 1000),
    sinks,
    approvalLinks: file?.approvalLinks ?? true,
    consoleUrl: file?.consoleUrl ?? null,
    rules: rules.map((rule) => ({
      id: rule.id,
      match: rule.match,
      severity: rule.severity ?? 'warning',
      dedupeWindowSeconds: rule.dedupeWindowSeconds ?? 3600,
      sinks: rule.sinks,
    })),
  };
}
