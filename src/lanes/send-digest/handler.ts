import { basename } from 'node:path';
import type { AppConfig } from '../../config/types.js';
import { DomainError, pointer, type ErrorDetail } from '../../domain/errors.js';
import type { TaskHandler } from '../../runtime/handler-types.js';
import type { OrchestratorState } from '../../domain/orchestrator-state.js';
import { configuredPathProblem, type ConfiguredPathRoots } from '../../workspace/configured-folder.js';
import { appendFileNoFollow } from '../../workspace/file-writes.js';
import { configurationRefusal, failure } from '../shared/handler-outcome.js';
import { guardedFetch } from '../../net/guarded-fetch.js';
import { describeFetchError, outboundLimits, responseOf } from '../shared/outbound.js';

const DEFAULT_HISTORY_LIMIT = 20;
const HIGH_URGENCY_LIMIT = 10;

export interface Digest {
  kind: 'task-orchestrator-digest';
  generatedAt: string;
  lastStartedAt: string | null;
  tasksProcessed: number;
  statusCounts: { completed: number; error: number; pending: number };
  recentTasks: Array<{ type: string; status: string; timestamp: string; durationMs: number; error?: string }>;
  highUrgencyDrafts: Array<{ itemTitle: string; itemUrl: string; relevanceScore: number; publishedAt: string }>;
}

/** The digest body: recent task history with counts by status and the newest high-urgency drafts. */
export function buildDigest(state: OrchestratorState, now: Date, historyLimit: number): Digest {
  const statusCounts = { completed: 0, error: 0, pending: 0 };
  for (const record of state.taskHistory) statusCounts[record.status] += 1;
  return {
    kind: 'task-orchestrator-digest',
    generatedAt: now.toISOString(),
    lastStartedAt: state.lastStartedAt,
    tasksProcessed: state.tasksProcessed,
    statusCounts,
    recentTasks: state.taskHistory.slice(-historyLimit).map((r) => ({
      type: r.type,
      status: r.status,
      timestamp: r.timestamp,
      durationMs: r.durationMs,
      ...(r.error ? { error: r.error } : {}),
    })),
    highUrgencyDrafts: state.rssDrafts
      .filter((d) => d.urgency === 'high')
      .slice(-HIGH_URGENCY_LIMIT)
      .map((d) => ({ itemTitle: d.itemTitle, itemUrl: d.itemUrl, relevanceScore: d.relevanceScore, publishedAt: d.publishedAt })),
  };
}

type Delivery = { target: string; ok: true; statusCode?: number } | { target: string; ok: false; error: string };

/** The target's answer is never read (its status says whether the digest arrived); this only bounds it. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs the digest as JSON through the guarded fetch to an http(s) URL (digestTargetProblems
 * refused any other; a target on a loopback or private address is refused unless
 * digestTargetAllowPrivateHosts); only the target's host is named, a redirect hop's too
 * (webhook URLs often carry a secret).
 */
async function postDigest(target: URL, allowPrivate: boolean, digest: Digest, signal: AbortSignal): Promise<Delivery> {
  const name = `webhook ${target.host}`;
  let response: Response;
  try {
    const outcome = await guardedFetch(
      target.href,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'task-orchestrator-send-digest' },
        body: JSON.stringify(digest),
        signal,
      },
      { rules: { allowPrivate, privateSetting: 'digestTargetAllowPrivateHosts' }, limits: outboundLimits(MAX_ANSWER_BYTES) },
    );
    response = responseOf(outcome, (hop) => new URL(hop).host);
  } catch (err) {
    return { target: name, ok: false, error: `digest not delivered to ${target.host}: ${describeFetchError(err)}` };
  }
  // The answer's body is not needed; cancelling it releases the connection.
  await response.body?.cancel();
  if (!response.ok) return { target: name, ok: false, error: `digest not delivered: ${target.host} answered HTTP ${response.status}` };
  return { target: name, ok: true, statusCode: response.status };
}

/**
 * Appends the digest as one JSON line to the configured file (a local outbox another tool can
 * ship). The file is checked like every configured path (its folders inside the workspace are
 * no links) and written without following a link: a symbolic or hard link at its name is refused.
 */
async function appendDigest(path: string, digest: Digest, roots: ConfiguredPathRoots): Promise<Delivery> {
  const target = `file ${basename(path)}`;
  const refused = configuredPathProblem(path, 'digest file', roots);
  if (refused) return { target, ok: false, error: `digestTargetFile refused: ${refused}` };
  try {
    await appendFileNoFollow(path, `${JSON.stringify(digest)}\n`, { label: 'digest file' });
    return { target, ok: true };
  } catch (err) {
    if (err instanceof DomainError) return { target, ok: false, error: `digestTargetFile refused: ${err.message}` };
    const code = (err as NodeJS.ErrnoException).code;
    return { target, ok: false, error: `digest not written to ${basename(path)} (${code ?? (err as Error).message})` };
  }
}

/**
 * send-digest: delivers the digest to every configured notification target: POSTed as JSON to
 * config.digestTargetUrl (10 s timeout) and/or appended as a JSON line to config.digestTargetFile.
 * No target, or a webhook setting that is no http(s) URL, is a configuration refusal (final). A
 * refusal (non-2xx), an unreachable target or an unwritable file fails the run with the cause;
 * with two targets the run fails when either does (the other is still attempted).
 */
export type SendDigestContext = Pick<AppConfig, 'digestTargetUrl' | 'digestTargetAllowPrivateHosts' | 'digestTargetFile' | 'workspaceRoot' | 'logsDir'>;

/**
 * What makes every digest fail whatever happens: no target at all, or a webhook setting that is
 * no http(s) URL. send-digest's admission check (lane hook), and its first step when it runs.
 */
export function digestTargetProblems(config: SendDigestContext): ErrorDetail[] {
  if (!config.digestTargetUrl && !config.digestTargetFile) {
    return [{ path: pointer('config', 'digestTargetUrl'), message: 'no notification target configured (set digestTargetUrl or digestTargetFile)' }];
  }
  if (!config.digestTargetUrl) return [];
  let url: URL;
  try {
    url = new URL(config.digestTargetUrl);
  } catch {
    return [{ path: pointer('config', 'digestTargetUrl'), message: 'digestTargetUrl is not a valid URL' }];
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') return [];
  return [{ path: pointer('config', 'digestTargetUrl'), message: `digestTargetUrl must be http or https, not ${url.protocol.replace(':', '')}` }];
}

export const sendDigestAdmissionCheck = (config: SendDigestContext) => () => digestTargetProblems(config);

export const sendDigest: TaskHandler<SendDigestContext> = async (state, config, input) => {
  // Admission refuses these already; a run admitted before the setting changed fails at once.
  const [unusable] = digestTargetProblems(config);
  if (unusable) throw configurationRefusal(unusable);
  const requested = input.payload.historyLimit;
  const historyLimit =
    typeof requested === 'number' && Number.isInteger(requested) && requested >= 1 ? Math.min(requested, 50) : DEFAULT_HISTORY_LIMIT;
  const digest = buildDigest(state, input.clock.now(), historyLimit);

  const deliveries: Delivery[] = [];
  if (config.digestTargetUrl) deliveries.push(await postDigest(new URL(config.digestTargetUrl), config.digestTargetAllowPrivateHosts, digest, input.signal));
  if (config.digestTargetFile) deliveries.push(await appendDigest(config.digestTargetFile, digest, config));
  const failed = deliveries.filter((d): d is Extract<Delivery, { ok: false }> => !d.ok);
  if (failed.length > 0) return failure(failed.map((d) => d.error).join('; '));
  const webhook = deliveries.find((d) => d.ok && d.statusCode !== undefined);
  return {
    status: 'completed',
    result: {
      delivered: true,
      targets: deliveries.map((d) => d.target),
      ...(webhook?.ok && config.digestTargetUrl ? { targetHost: new URL(config.digestTargetUrl).host, statusCode: webhook.statusCode } : {}),
      itemCount: digest.recentTasks.length + digest.highUrgencyDrafts.length,
    },
  };
};
