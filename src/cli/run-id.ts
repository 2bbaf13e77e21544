import { OrchApiError, type OrchClient } from '../client/index.js';
import { UsageError } from './usage-error.js';
import { when } from './output.js';

/** A run id this long or longer may be given short: the start of the id, resolved through `?idPrefix=`. */
export const SHORT_ID_MIN = 8;

/** How many candidates an ambiguous short id names. */
const CANDIDATES = 10;

const isShortable = (id: string) => [...id].length >= SHORT_ID_MIN;

function ambiguous(id: string, total: number, lines: string[]): UsageError {
  const more = total > lines.length ? [`  ... and ${total - lines.length} more`] : [];
  return new UsageError([`'${id}' is the start of ${total} ids; give more of it:`, ...lines.map((l) => `  ${l}`), ...more].join('\n'));
}

/** The first runs whose id starts with `id`; null from a service older than `?idPrefix=` (it refuses the parameter). */
async function runsStartingWith(api: OrchClient, id: string) {
  try {
    return await api.listRuns({ idPrefix: id, includeInternal: true, limit: CANDIDATES });
  } catch (err) {
    if (err instanceof OrchApiError && err.code === 'invalid_request' && JSON.stringify(err.details ?? '').includes('idPrefix')) return null;
    throw err;
  }
}

/**
 * The run id a word names: itself when a run has that exact id, else the one run whose id starts
 * with it (8 characters or more). No match, or a service that cannot search by prefix: the word
 * as given, so the service answers for it (404 when unknown). Several: a usage error naming them. The service's paths keep exact ids; only the command
 * line resolves.
 */
export async function resolveRunId(api: OrchClient, id: string): Promise<string> {
  if (!isShortable(id)) return id;
  const page = await runsStartingWith(api, id);
  if (page === null) return id;
  if (page.total === 0 || page.items.some((run) => run.runId === id)) return id;
  if (page.total === 1) return page.items[0]!.runId;
  // Newest first: a run with exactly this id may lie beyond the page of longer ones.
  try {
    return (await api.getRun(id)).runId;
  } catch (err) {
    if (!(err instanceof OrchApiError) || err.status !== 404) throw err;
  }
  throw ambiguous(id, page.total, page.items.map((run) => `${run.runId}  ${run.type}  ${run.status}  ${when(run.createdAt)}`));
}

/**
 * An approval's id (the held task's id) from a word: exact, or the one pending approval whose
 * task id or run id starts with it (8 characters or more). No match: the word as given, so the
 * service decides (404 unknown, 409 no longer pending).
 */
export async function resolveApprovalId(api: OrchClient, id: string): Promise<string> {
  if (!isShortable(id)) return id;
  const { pending } = await api.pendingApprovals();
  if (pending.some((item) => item.taskId === id)) return id;
  const matches = pending.filter((item) => item.taskId.startsWith(id) || item.runId.startsWith(id));
  if (matches.length === 0) return id;
  if (matches.length === 1) return matches[0]!.taskId;
  const shown = matches.slice(0, CANDIDATES);
  throw ambiguous(id, matches.length, shown.map((item) => `${item.taskId}  run ${item.runId}  ${item.type}`));
}
