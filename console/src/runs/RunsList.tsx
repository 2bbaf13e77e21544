import { keepPreviousData, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { apiRequest } from '../api/client.js';
import { useApiQuery } from '../api/hooks.js';
import { RUN_STATUS_LIST, type RunListAnswer, type RunView } from '../api/types.js';
import { can } from '../auth/roles.js';
import { useSession } from '../auth/session.js';
import { QueryView, RunStatusBadge } from '../components/common.js';
import { FilterSelect } from '../components/FilterSelect.js';
import { TagChips } from './TagChips.js';
import { CATALOG_PATH, type Catalog } from '../lib/catalog.js';
import { segment, toQueryString } from '../lib/query-string.js';
import { useFilterParams } from '../lib/use-filter-params.js';
import { formatAgo, formatDuration, formatTime } from './format.js';
import { CREATED_RANGES, createdRangeStart } from './created-range.js';
import { HELD_FILTER, isAwaitingApproval } from './held.js';
import { heldByWords } from '../lib/queue-words.js';
import { heldOnly, RUNS_PATH, runListQuery } from './held-filter.js';
import { useQueueStateFilter } from './use-queue-state-filter.js';
import { StreamStatus } from './StreamStatus.js';
import { BulkRunActions } from './BulkRunActions.js';
import { useNow } from './use-now.js';
import { useRunsFeed } from './use-runs-feed.js';
import './runs.css';

const PAGE_SIZE = 20;
const RUN_COUNTS_KEY = 'run-counts';
/** Runs read to count the held ones when the service does not filter on the queue state. */
const HELD_COUNT_PAGE = 100;

/**
 * One count per status: the `total` of a one-row page with the list's type and creation range,
 * so the counts always cover what the list would show under that status.
 */
function StatusCounts(props: { type: string; createdFrom: string; active: string; queueStateFilter: boolean | null; onPick: (status: string) => void }) {
  const { type, createdFrom, active, queueStateFilter, onPick } = props;
  const { token } = useSession();
  const statuses = [...RUN_STATUS_LIST, HELD_FILTER];
  const counts = useQueries({
    queries: statuses.map((status) => {
      // Held runs are counted from a page of them: exact when the service filters on the queue
      // state, the held runs among the newest pending ones when it does not (heldOnly).
      const held = status === HELD_FILTER;
      const path = `${RUNS_PATH}${toQueryString({ ...runListQuery(status, queueStateFilter === true), type, createdFrom, limit: held ? HELD_COUNT_PAGE : 1 })}`;
      return {
        queryKey: [RUN_COUNTS_KEY, type, status, createdFrom, held ? queueStateFilter : null],
        queryFn: async ({ signal }: { signal: AbortSignal }) => (await apiRequest<RunListAnswer>(path, { token, signal })).body,
        enabled: token !== null && (!held || queueStateFilter !== null),
        placeholderData: keepPreviousData,
        select: (page: RunListAnswer) => (held ? heldOnly(page).total : page.total),
      };
    }),
  }).map((query, i) => ({ status: statuses[i]!, query }));
  return (
    <ul className="status-counts" aria-label="Runs per status">
      {counts.map(({ status, query }) => (
        <li key={status}>
          <button type="button" className={`count-chip${active === status ? ' active' : ''}`} aria-pressed={active === status} onClick={() => onPick(active === status ? '' : status)}>
            <RunStatusBadge status={status === HELD_FILTER ? 'pending' : status} held={status === HELD_FILTER} /> <span className="count">{query.data ?? '…'}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}

function RunSearch() {
  const navigate = useNavigate();
  const [id, setId] = useState('');
  function submit(e: FormEvent) {
    e.preventDefault();
    const trimmed = id.trim();
    if (trimmed) void navigate(`/runs/${segment(trimmed)}`);
  }
  return (
    <form className="run-search" role="search" aria-label="Find a run" onSubmit={submit}>
      <label htmlFor="run-search">Run id</label>
      <input id="run-search" value={id} onChange={(e) => setId(e.target.value)} autoComplete="off" placeholder="exact run id" />
      <button type="submit">Open run</button>
    </form>
  );
}

/**
 * The rows an operator picked for a bulk action, by run id. Kept across pages and filters, so a
 * selection can gather runs from several views; the confirmation lists them all.
 */
function useRunSelection() {
  const [selected, setSelected] = useState<ReadonlyMap<string, RunView>>(new Map());
  const toggle = (run: RunView) =>
    setSelected((current) => {
      const next = new Map(current);
      if (next.has(run.runId)) next.delete(run.runId);
      else next.set(run.runId, run);
      return next;
    });
  const setAll = (runs: RunView[], on: boolean) =>
    setSelected((current) => {
      const next = new Map(current);
      for (const run of runs) {
        if (on) next.set(run.runId, run);
        else next.delete(run.runId);
      }
      return next;
    });
  return { selected, toggle, setAll, clear: () => setSelected(new Map()) };
}

/** The characters a tag is made of (docs/tasks.md, "Run tags"), as the service checks them. */
const TAG_PATTERN = /^[A-Za-z0-9._:/=-]{1,64}$/;

/**
 * The tag filter: the service filters on it (`?tag=`), so the list, its total and its pages cover
 * it. Applied when submitted (Enter), and only when it is a tag the service would accept.
 */
function TagFilter({ value, onChange }: { value: string; onChange: (tag: string) => void }) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  const valid = text === '' || TAG_PATTERN.test(text);
  return (
    <div className="filter-field">
      <label htmlFor="runs-tag">Tag</label>
      <input
        id="runs-tag"
        type="search"
        value={text}
        placeholder="team:core"
        autoComplete="off"
        aria-invalid={!valid}
        aria-describedby="runs-tag-hint"
        onChange={(e) => setText(e.target.value)}
        onBlur={() => valid && text !== value && onChange(text)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && valid) onChange(text);
        }}
      />
      <span id="runs-tag-hint" className={valid ? 'visually-hidden' : 'field-error'}>
        {valid ? 'Press Enter to filter by this tag' : 'Letters, digits and . _ : / = - only, at most 64'}
      </span>
    </div>
  );
}

/** `/operator/runs`: every run, newest first, live from the event stream. */
export function RunsPage() {
  const { params, update } = useFilterParams();
  const status = params.get('status') ?? '';
  const type = params.get('type') ?? '';
  const range = params.get('range') ?? '';
  const filter = params.get('q') ?? '';
  const tag = params.get('tag') ?? '';
  const cursor = params.get('cursor') ?? '';
  const [previous, setPrevious] = useState<string[]>([]);
  const now = useNow(10_000);
  const catalog = useApiQuery<Catalog>(CATALOG_PATH);

  // The range is filtered by the service, so `total`, the counts and the cursor pages all cover it.
  const since = createdRangeStart(range, now);
  const createdFrom = since === null ? '' : new Date(since).toISOString();
  const heldView = status === HELD_FILTER;
  const queueStateFilter = useQueueStateFilter();
  const path = `${RUNS_PATH}${toQueryString({ ...runListQuery(status, queueStateFilter === true), type, tag, createdFrom, limit: PAGE_SIZE, cursor })}`;
  const { token, identity } = useSession();
  // Selecting rows is for those who may cancel and rerun; the service checks the role anyway.
  const canAct = can(identity?.role, 'cancelRun') && can(identity?.role, 'rerunRun');
  const selection = useRunSelection();
  const queryClient = useQueryClient();
  // After a bulk action the per-status counts are read again at once, not on the next event.
  const afterBulk = () => {
    selection.clear();
    void queryClient.invalidateQueries({ queryKey: [RUN_COUNTS_KEY] });
  };
  const listKey = ['api', path];
  const runs = useQuery({
    queryKey: listKey,
    queryFn: async ({ signal }) => (await apiRequest<RunListAnswer>(path, { token, signal })).body,
    // The held view waits to know whether the service filters on the queue state.
    enabled: token !== null && (!heldView || queueStateFilter !== null),
    placeholderData: keepPreviousData,
  });
  const feed = useRunsFeed({ listKey, countsKey: [RUN_COUNTS_KEY], firstPage: cursor === '', type, status: runListQuery(status, false).status ?? '', since });

  const setFilter = (patch: Record<string, string | null>) => {
    setPrevious([]);
    update({ ...patch, cursor: null });
  };

  return (
    <>
      <h1>Runs</h1>
      <StreamStatus status={feed} label="Live" />
      <StatusCounts type={type} createdFrom={createdFrom} active={status} queueStateFilter={queueStateFilter} onPick={(s) => setFilter({ status: s })} />
      <form className="filters" aria-label="Run filters" onSubmit={(e) => e.preventDefault()}>
        <FilterSelect
          id="runs-status"
          label="Status"
          value={status}
          emptyLabel="any"
          options={[...RUN_STATUS_LIST, { value: HELD_FILTER, label: 'awaiting approval' }]}
          onChange={(v) => setFilter({ status: v })}
        />
        <FilterSelect id="runs-type" label="Type" value={type} emptyLabel="any" options={(catalog.data?.tasks ?? []).map((t) => t.type)} onChange={(v) => setFilter({ type: v })} />
        <FilterSelect
          id="runs-range"
          label="Created"
          value={range}
          emptyLabel="any time"
          options={Object.entries(CREATED_RANGES).map(([key, r]) => ({ value: key, label: r.label }))}
          onChange={(v) => setFilter({ range: v })}
        />
        <TagFilter value={tag} onChange={(v) => setFilter({ tag: v })} />
        <div className="filter-field">
          <label htmlFor="runs-filter">Run id contains</label>
          <input id="runs-filter" type="search" value={filter} onChange={(e) => update({ q: e.target.value })} autoComplete="off" />
        </div>
      </form>
      <RunSearch />
      {canAct && <BulkRunActions selected={[...selection.selected.values()]} onClear={selection.clear} onDone={afterBulk} />}
      <QueryView query={runs} label="runs">
        {(data) => {
          const needle = filter.trim().toLowerCase();
          const page = heldView ? heldOnly(data) : { ...data, filteredHere: false };
          const shown = needle ? page.items.filter((r) => r.runId.toLowerCase().includes(needle)) : page.items;
          const first = cursor === '';
          const allShownSelected = shown.length > 0 && shown.every((r) => selection.selected.has(r.runId));
          return (
            <>
              <div className="table-scroll" role="region" aria-label="Runs" tabIndex={0}>
                <table className="runs-table stack-on-phone">
                  <caption>
                    {first ? 'Newest runs' : 'Older runs'}
                    {heldView ? ' awaiting approval' : ''}: {shown.length} shown of {page.filteredHere ? `${page.total} on this page` : page.total}
                    {since !== null ? ` (${CREATED_RANGES[range]!.label})` : ''}
                  </caption>
                  <thead>
                    <tr>
                      {canAct && (
                        <th scope="col" className="pick">
                          <input type="checkbox" aria-label="Select all shown runs" checked={allShownSelected} onChange={(e) => selection.setAll(shown, e.target.checked)} />
                        </th>
                      )}
                      <th scope="col">Run</th>
                      <th scope="col">Type</th>
                      <th scope="col">Status</th>
                      <th scope="col">Created</th>
                      <th scope="col" className="wide-only">
                        Duration
                      </th>
                      <th scope="col" className="wide-only">
                        By
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {shown.map((r) => (
                      <tr key={r.runId} className={selection.selected.has(r.runId) ? 'picked' : undefined}>
                        {canAct && (
                          <td className="pick">
                            <input type="checkbox" aria-label={`Select run ${r.runId}`} checked={selection.selected.has(r.runId)} onChange={() => selection.toggle(r)} />
                          </td>
                        )}
                        <td className="mono full">
                          <Link to={`/runs/${segment(r.runId)}`}>{r.runId}</Link>
                          <TagChips tags={r.tags} />
                        </td>
                        <td>{r.type}</td>
                        <td>
                          <RunStatusBadge status={r.status} held={isAwaitingApproval(r)} />
                          {r.status === 'pending' && heldByWords(r.heldBy) !== null && <span className="hint held-by">{heldByWords(r.heldBy)}</span>}
                        </td>
                        <td>
                          <time dateTime={r.createdAt} title={formatTime(r.createdAt)}>
                            {formatAgo(r.createdAt, now)}
                          </time>
                        </td>
                        <td className="wide-only">{r.finishedAt ? formatDuration(Date.parse(r.finishedAt) - Date.parse(r.createdAt)) : '—'}</td>
                        <td className="wide-only">{r.requestedBy ?? r.source}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              {shown.length === 0 && <p className="empty">No run matches these filters.</p>}
              <div className="pager">
                <button type="button" disabled={first} onClick={() => { setPrevious([]); update({ cursor: null }); }}>
                  Newest
                </button>
                <button
                  type="button"
                  disabled={first}
                  onClick={() => {
                    const back = previous[previous.length - 1] ?? '';
                    setPrevious((p) => p.slice(0, -1));
                    update({ cursor: back || null });
                  }}
                >
                  Newer
                </button>
                <button
                  type="button"
                  disabled={!data.nextCursor}
                  onClick={() => {
                    setPrevious((p) => [...p, cursor]);
                    update({ cursor: data.nextCursor });
                  }}
                >
                  Older
                </button>
              </div>
            </>
          );
        }}
      </QueryView>
    </>
  );
}
