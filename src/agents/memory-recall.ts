import { readFile } from 'node:fs/promises';
import { DomainError, notFound } from '../domain/errors.js';
import type { Identity } from '../domain/identity.js';
import type { StateStore } from '../store/types.js';
import { runHeadline, type RunRecord } from '../domain/run-record.js';
import { heartbeatFilePath, type ServiceHeartbeat } from '../common/resident-service.js';
import type { AgentRegistry, RegisteredAgent } from './registry.js';

/**
 * Agent memory recall: the agent's runs (newest first, paged) with short highlights, and for a
 * service-expected agent its resident-service heartbeat. Redacted by default; unredacted output
 * is for admin keys only, and the caller is refused before any work is done.
 */

export const HIGHLIGHT_STRING_MAX = 200;
export const HIGHLIGHT_KEYS_MAX = 40;

export type RedactionKind = 'private-key' | 'bearer-token' | 'secret' | 'email' | 'path' | 'high-entropy';

const PRIVATE_KEY = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g;
const BEARER = /\bBearer\s+[A-Za-z0-9._~+/=-]{6,}/gi;
const SECRET_ASSIGNMENT =
  /\b([A-Za-z0-9_.-]*(?:api[_-]?key|key|secret|token|password|passwd|pwd|credential)[A-Za-z0-9_.-]*)(\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;&"']+)/gi;
const EMAIL = /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b/g;
// Unix paths of two or more segments not inside a URL, and drive-letter Windows paths.
const UNIX_PATH = /(?<![\w.:/~-])\/(?:[\w.@+-]+\/)+[\w.@+-]*/g;
const WINDOWS_PATH = /\b[A-Za-z]:\\(?:[^\\\s"'<>|]+\\)*[^\\\s"'<>|]*/g;
const LONG_TOKEN = /[A-Za-z0-9+/_=-]{32,}/g;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const marker = (kind: RedactionKind) => `[redacted:${kind}]`;

function shannonBitsPerChar(text: string): number {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** A long token mixing character classes with high entropy reads as a credential; a UUID does not. */
function looksHighEntropy(token: string): boolean {
  if (UUID.test(token)) return false;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/].filter((r) => r.test(token)).length;
  return classes >= 2 && shannonBitsPerChar(token) >= 3.5;
}

/** Replaces secrets, tokens, private keys, e-mail addresses and absolute paths in one string. */
export function redactText(text: string): string {
  return text
    .replace(PRIVATE_KEY, marker('private-key'))
    .replace(BEARER, marker('bearer-token'))
    .replace(SECRET_ASSIGNMENT, (_m, key: string, sep: string) => `${key}${sep}${marker('secret')}`)
    .replace(EMAIL, marker('email'))
    .replace(UNIX_PATH, marker('path'))
    .replace(WINDOWS_PATH, marker('path'))
    .replace(LONG_TOKEN, (token) => (looksHighEntropy(token) ? marker('high-entropy') : token));
}

/** Redacts every string inside a JSON-like value. */
export function redactValue<T>(value: T): T {
  if (typeof value === 'string') return redactText(value) as T;
  if (Array.isArray(value)) return value.map(redactValue) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, redactValue(v)])) as T;
  }
  return value;
}

export interface RecalledRun {
  runId: string;
  type: string;
  status: string;
  createdAt: string;
  finishedAt: string | null;
  operatorSummary: string | null;
  error: string | null;
  highlights: { keys: string[]; values: Record<string, string | number | boolean> };
}

export interface AgentMemoryRecall {
  agentId: string;
  lifecycleMode: RegisteredAgent['lifecycleMode'];
  lanes: string[];
  redacted: boolean;
  runs: RecalledRun[];
  page: { limit: number; offset: number; returned: number; total: number };
  totals: { runs: number; byStatus: Record<string, number>; lastRunAt: string | null };
  /** Service-expected agents only; null when the heartbeat file is absent. */
  serviceHeartbeat: ServiceHeartbeat | null;
}

export interface MemoryRecallQuery {
  agentId: string;
  limit: number;
  offset: number;
  includeSensitive: boolean;
}

export interface MemoryRecallDeps {
  registry: AgentRegistry;
  store: StateStore;
  serviceHeartbeat: (agent: RegisteredAgent) => Promise<ServiceHeartbeat | null>;
}

/** The one rule for unredacted recall: admin keys only. Throws 403 `forbidden` otherwise. */
export function assertMayIncludeSensitive(identity: Identity, includeSensitive: boolean): void {
  if (includeSensitive && identity.role !== 'admin') {
    throw new DomainError('forbidden', 'includeSensitive=true requires an admin key');
  }
}

/** Top-level result keys, and the short scalar values among them. */
export function resultHighlights(result: unknown): RecalledRun['highlights'] {
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return { keys: [], values: {} };
  const entries = Object.entries(result as Record<string, unknown>).slice(0, HIGHLIGHT_KEYS_MAX);
  const values: Record<string, string | number | boolean> = {};
  for (const [k, v] of entries) {
    if (typeof v === 'number' || typeof v === 'boolean') values[k] = v;
    else if (typeof v === 'string' && v.length <= HIGHLIGHT_STRING_MAX) values[k] = v;
  }
  return { keys: entries.map(([k]) => k), values };
}

function recalledRun(run: RunRecord): RecalledRun {
  return {
    ...runHeadline(run),
    operatorSummary: run.operatorSummary,
    error: run.error ?? run.failureReason,
    highlights: resultHighlights(run.result),
  };
}

const newestFirst = (a: RunRecord, b: RunRecord) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.seq - a.seq);

export async function recallAgentMemory(deps: MemoryRecallDeps, query: MemoryRecallQuery): Promise<AgentMemoryRecall> {
  const agent = deps.registry.get(query.agentId);
  if (!agent) throw notFound(`agent ${query.agentId}`);
  // Each lane is read only as deep as the requested page reaches, then the lanes are merged.
  const depth = query.offset + query.limit;
  const [pages, counts] = await Promise.all([
    Promise.all(agent.lanes.map((type) => deps.store.listRuns({ type, limit: depth, offset: 0, includeInternal: true }))),
    deps.store.countRuns(true),
  ]);
  const merged = pages.flatMap((p) => p.items).sort(newestFirst);
  const total = pages.reduce((sum, p) => sum + p.total, 0);
  const runs = merged.slice(query.offset, depth).map(recalledRun);

  const byStatus: Record<string, number> = {};
  for (const lane of agent.lanes) {
    for (const [status, n] of Object.entries(counts.byType[lane] ?? {})) byStatus[status] = (byStatus[status] ?? 0) + n;
  }
  const heartbeat = agent.serviceExpected ? await deps.serviceHeartbeat(agent) : null;
  const recall: AgentMemoryRecall = {
    agentId: agent.id,
    lifecycleMode: agent.lifecycleMode,
    lanes: [...agent.lanes],
    redacted: !query.includeSensitive,
    runs,
    page: { limit: query.limit, offset: query.offset, returned: runs.length, total },
    totals: { runs: total, byStatus, lastRunAt: merged[0]?.createdAt ?? null },
    serviceHeartbeat: heartbeat,
  };
  if (query.includeSensitive) return recall;
  return { ...recall, runs: redactValue(recall.runs), serviceHeartbeat: redactValue(recall.serviceHeartbeat) };
}

/** Reads `<logsDir>/<agent>-service.json`; null when absent or unreadable. */
export function createHeartbeatReader(logsDir: string): (agent: { id: string }) => Promise<ServiceHeartbeat | null> {
  return async (agent) => {
    try {
      const data = JSON.parse(await readFile(heartbeatFilePath(logsDir, agent.id), 'utf8')) as Partial<ServiceHeartbeat>;
      return typeof data.agentId === 'string' && typeof data.heartbeatAt === 'string' ? (data as ServiceHeartbeat) : null;
    } catch {
      return null;
    }
  };
}
