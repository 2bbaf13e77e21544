/**
 * Tags of cached reads. Readers (the route table's `cache.tags`) and writers (invalidation after
 * a state write) name the same tags, so the names live in the domain beside the writers.
 */
export const CacheTags = {
  runs: 'runs',
  run: (runId: string) => `run:${runId}`,
  approvals: 'approvals',
  catalog: 'catalog',
  persistence: 'persistence',
  skills: 'skills',
  agents: 'agents',
  openapi: 'openapi',
  /** Incident ledger writes; aggregates that show incident rollups carry it. */
  incidents: 'incidents',
  /** Public proof feeds (milestones, command center); runs writes reach them through `runs`. */
  proof: 'proof',
  /** The knowledge summary and query: bumped whenever the knowledge index changes. */
  knowledge: 'knowledge',
  incident: (incidentId: string) => `incident:${incidentId}`,
  /**
   * One filter combination of the runs list: visibility (`all` with includeInternal=true,
   * `public` without), status and type, each `*` when the page does not filter on it. The type
   * comes last, so a type containing `:` cannot make two combinations share a tag.
   */
  runList: (visibility: RunListVisibility, status: string, type: string) => `runs-list:${visibility}:${status}:${type}`,
  /** Every runs-list page showing a status (`*`: pages without a status filter); bumped by pruning. */
  runListStatus: (status: string) => `runs-list-status:${status}`,
} as const;

export type RunListVisibility = 'all' | 'public';

/** The `*` of a runs-list tag: the page does not filter on that field. */
export const ANY = '*';

/** The filters of one runs-list page, as the HTTP query gives them. */
export interface RunListFilter {
  type?: string;
  status?: string;
  includeInternal: boolean;
}

/** What a run write must name to reach every runs-list page it can change. */
export interface RunListWrite {
  type: string;
  internal: boolean;
  /** The run's status after the write. */
  status: string;
  /** Its status before the write: null for a new run, undefined when it did not change. */
  previousStatus?: string | null;
}

/**
 * Tags of a runs-list page. A page's answer (items, total, cursor) depends only on the runs that
 * match its filters, so it carries the tag of its exact filter combination, plus the status-wide
 * tag that pruning bumps (pruning knows the statuses it deletes, not the types).
 */
export function runListPageTags(filter: RunListFilter): string[] {
  const visibility: RunListVisibility = filter.includeInternal ? 'all' : 'public';
  const status = filter.status ?? ANY;
  return [CacheTags.runList(visibility, status, filter.type ?? ANY), CacheTags.runListStatus(status)];
}

/**
 * Tags of every runs-list page a run write can change: each combination whose filters the run
 * matches before or after the write (its type or any type; its old status, its new status or any
 * status; pages showing internal runs, and the public ones too unless the run is internal). A
 * page newest-first is changed by a matching new run at every offset (the run shifts every page,
 * and total changes), so pages are tagged by filter, never by position. Pages whose filters the
 * run matches neither before nor after keep their entries: neither their items nor total moved.
 */
export function runListWriteTags(write: RunListWrite): readonly string[] {
  // The same few combinations recur on every write (types x statuses): the strings are made once,
  // and a string used again keeps its hash, so the tag lookups that follow need not hash it anew.
  const previous = write.previousStatus && write.previousStatus !== write.status ? write.previousStatus : '';
  const byStatus = (write.internal ? internalWriteTags : publicWriteTags).get(write.type)?.get(write.status);
  const known = byStatus?.get(previous);
  if (known !== undefined) return known;
  const tags = makeRunListWriteTags(write);
  if (memoizedWriteTags >= MAX_MEMOIZED_WRITE_TAGS) {
    internalWriteTags.clear();
    publicWriteTags.clear();
    memoizedWriteTags = 0;
  }
  nestedMap(nestedMap(write.internal ? internalWriteTags : publicWriteTags, write.type), write.status).set(previous, tags);
  memoizedWriteTags += 1;
  return tags;
}

/** Memo of runListWriteTags by visibility, then type, status and previous status ('' when none). */
const internalWriteTags = new Map<string, Map<string, Map<string, readonly string[]>>>();
const publicWriteTags = new Map<string, Map<string, Map<string, readonly string[]>>>();
/** Types and statuses are bounded sets; the cap only guards against a caller that is not. */
const MAX_MEMOIZED_WRITE_TAGS = 10_000;
let memoizedWriteTags = 0;

function nestedMap<V>(parent: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let child = parent.get(key);
  if (child === undefined) {
    child = new Map();
    parent.set(key, child);
  }
  return child;
}

function makeRunListWriteTags(write: RunListWrite): readonly string[] {
  const visibilities: RunListVisibility[] = write.internal ? ['all'] : ['all', 'public'];
  const statuses = [ANY, write.status];
  if (write.previousStatus && write.previousStatus !== write.status) statuses.push(write.previousStatus);
  const tags: string[] = [];
  for (const visibility of visibilities) {
    for (const status of statuses) {
      tags.push(CacheTags.runList(visibility, status, ANY), CacheTags.runList(visibility, status, write.type));
    }
  }
  return Object.freeze(tags);
}

/** Tags pruning bumps: every page that can show a run in one of the pruned statuses. */
export function runListPruneTags(statuses: readonly string[]): string[] {
  return [CacheTags.runListStatus(ANY), ...statuses.map((status) => CacheTags.runListStatus(status))];
}

/** Drops cached reads by tag; a writer awaits it before acknowledging the write. */
export interface CacheInvalidator {
  invalidate(tags: string[]): Promise<void>;
}
