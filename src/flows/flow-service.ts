import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { CacheInvalidator } from '../domain/cache-invalidation.js';
import { conflict, DomainError, invalidRequest, notFound, pointer } from '../domain/errors.js';
import type { Identity } from '../domain/identity.js';
import type { RunRecord } from '../domain/run-record.js';
import type { StateStore } from '../store/types.js';
import type { Admit } from '../runtime/admission.js';
import { requestedPlacement } from '../runtime/placement-schema.js';
import { requestedTags } from '../runtime/tags-schema.js';
import { checkCreatedRange } from '../runtime/run-time-range.js';
import type { TriggerCheck } from '../runtime/trigger-check.js';
import { FLOW_COLLECTIONS, FLOW_LIST_CURSOR, flowListKey, listKeyTime, stepRunIdOf, type FlowDoc } from './flow-definition.js';
import { createFlowAdmission, type FlowRequest } from './flow-admission.js';
import type { FlowStatus } from './flow-plan.js';
import { createFlowAdvance, type AdvanceScope } from './flow-promotion.js';
import { createFlowDocs } from './flow-docs.js';
import { reusedSteps } from './flow-rerun.js';
import { loadFlow, type FlowCancelDoc, type FlowOutcomeDoc } from './flow-reader.js';
import { flowSummaryOf, toFlowView, type FlowSummary, type FlowView } from './flow-view.js';

export interface FlowServiceDeps {
  store: StateStore;
  clock: Clock;
  logger: Logger;
  invalidator: CacheInvalidator;
  admit: Admit;
  checkTrigger: TriggerCheck;
  onReady: () => void;
  /** The runtime's run cancel (a flow's cancel stops its started steps as a run cancel does). */
  cancelRun: (runId: string, reason: string | null, identity: Identity) => Promise<unknown>;
  /** How often every flow not ended is moved on from the store (promotions a dead instance missed); default 2 s. */
  sweepIntervalMs?: number;
}

export interface FlowListQuery {
  status?: FlowStatus;
  from?: string;
  to?: string;
  limit?: number;
  /** `nextCursor` of the previous page: the flows listed after it. */
  cursor?: string;
}

/** Listing entries read per round while a page is filled (a status filter may pass over some). */
const LIST_BATCH = 100;

/** Longer than any admission takes to write its flow document after listing it open. */
const ABANDONED_ADMISSION_MS = 10 * 60_000;

/**
 * Passes moving one flow on that run at once in this process; a call past them joins the next
 * pass. A settled step's pass need not wait for another's (each is a set of compare-and-sets), so
 * they run side by side (a grid layer's steps settle together); the bound keeps a wide fan-in
 * from starting one pass per step.
 */
const PASSES_PER_FLOW = 16;

/** Step states whose run (or replay) is admitted and not ended: a flow's cancel goes through the run cancel for these. */
const STARTED_STATES = new Set(['queued', 'awaiting-approval', 'running', 'retrying']);

/**
 * Flows: admission, promotion (driven by every settled step run, and by a sweep for what a dead
 * instance missed), views and cancel. Promotion in one process is bounded per flow, only to
 * save reads: its correctness rests on the store's compare-and-sets (flow-promotion.ts).
 */
export function createFlowService(deps: FlowServiceDeps) {
  const { store, logger } = deps;
  const docs = createFlowDocs(store);
  const admission = createFlowAdmission(deps);
  const { advance } = createFlowAdvance({ ...deps, ensureSteps: admission.ensureSteps, docs });

  /** Per flow, the passes running in this process and the one waiting for a free place (its scopes merged). */
  const inFlight = new Map<string, FlowPasses>();

  /** Runs one pass; when it ends, the waiting pass takes its place, or the flow's entry goes. */
  function runPass(flowId: string, passes: FlowPasses, scope: AdvanceScope): Promise<void> {
    passes.running += 1;
    return advance(flowId, scope).finally(() => {
      passes.running -= 1;
      const waiting = passes.waiting;
      if (waiting) {
        passes.waiting = null;
        runPass(flowId, passes, waiting.scope).then(waiting.resolve, waiting.reject);
      } else if (passes.running === 0) inFlight.delete(flowId);
    });
  }

  /**
   * Advances the flow: the dependents of `settledKey` when given, else all of it. Up to
   * PASSES_PER_FLOW settled steps' passes run at once, a pass over all of it alone; a call that
   * cannot start joins the waiting pass (scopes merged), which starts when a running one ends.
   */
  function advanceSoon(flowId: string, settledKey?: string): Promise<void> {
    const asked: PassScope = settledKey === undefined ? { all: true } : { all: false, settled: new Set([settledKey]) };
    let passes = inFlight.get(flowId);
    if (!passes) inFlight.set(flowId, (passes = { running: 0, waiting: null }));
    // A pass over all of it (admission, cancel, sweep) gains nothing beside another: it waits for them.
    if (passes.running < (asked.all ? 1 : PASSES_PER_FLOW)) return runPass(flowId, passes, asked);
    if (passes.waiting) {
      passes.waiting.scope = mergeScopes(passes.waiting.scope, asked);
      return passes.waiting.done;
    }
    let settle!: Pick<WaitingPass, 'resolve' | 'reject'>;
    const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    passes.waiting = { scope: asked, done, ...settle };
    return done;
  }

  async function create(request: FlowRequest) {
    const outcome = await admission.admitFlow(request);
    await advanceSoon(outcome.doc.flowId);
    const { doc } = outcome;
    return { kind: outcome.kind, flowId: doc.flowId, runIds: doc.steps.map((s) => stepRunIdOf(doc.flowId, s)), scheduledBy: doc.scheduledBy };
  }

  async function get(flowId: string): Promise<FlowView> {
    const flow = await loadFlow(store, flowId, docs.doc);
    if (!flow) throw notFound(`flow ${flowId}`);
    return toFlowView(flow);
  }

  /**
   * Flows newest first, a page at a time: the listing (collection `flow-list`, keyed by creation
   * time) is read from the cursor down, and each entry's documents by id, until the page is full
   * or the range ends. Only the flows a page passes over are read, never every flow.
   */
  async function list(query: FlowListQuery): Promise<{ items: FlowSummary[]; nextCursor: string | null }> {
    checkCreatedRange(query.from, query.to);
    if (query.cursor !== undefined && !FLOW_LIST_CURSOR.test(query.cursor)) {
      throw invalidRequest('cursor is not one a flow listing handed out', [{ path: pointer('query', 'cursor'), message: 'must be the nextCursor of a previous page' }]);
    }
    const limit = query.limit ?? 50;
    const toKey = query.to === undefined ? undefined : listKeyTime(query.to);
    let below = query.cursor !== undefined && (toKey === undefined || query.cursor < toKey) ? query.cursor : toKey;
    const atOrAbove = query.from === undefined ? undefined : listKeyTime(query.from);
    const items: FlowSummary[] = [];
    for (;;) {
      const entries = await store.listDocPage(FLOW_COLLECTIONS.listing, { below, atOrAbove, limit: LIST_BATCH });
      for (const entry of entries) {
        below = entry.id;
        const summary = await summaryOf(String(entry.doc.flowId));
        if (!summary || (query.status !== undefined && summary.status !== query.status)) continue;
        items.push(summary);
        if (items.length === limit) return { items, nextCursor: entry.id };
      }
      if (entries.length < LIST_BATCH) return { items, nextCursor: null };
    }
  }

  /** One flow's list entry: its three documents, read by id. */
  async function summaryOf(flowId: string): Promise<FlowSummary | null> {
    const [doc, cancel, outcome] = await Promise.all([
      docs.doc(flowId),
      store.getDoc(FLOW_COLLECTIONS.cancels, flowId),
      store.getDoc(FLOW_COLLECTIONS.outcomes, flowId),
    ]);
    return doc ? flowSummaryOf(doc, cancel as FlowCancelDoc | null, outcome as FlowOutcomeDoc | null) : null;
  }

  /**
   * Lists the flows admitted before the listing existed, once per store (whichever instance
   * starts first; a second doing it too inserts nothing twice): the one read of every flow.
   */
  async function buildListing(): Promise<void> {
    if (await store.getDoc(FLOW_COLLECTIONS.listingBuilt, 'v1')) return;
    for (const doc of (await store.listDocs(FLOW_COLLECTIONS.flows)) as unknown as FlowDoc[]) {
      await store.insertDoc(FLOW_COLLECTIONS.listing, flowListKey(doc), { flowId: doc.flowId });
    }
    await store.insertDoc(FLOW_COLLECTIONS.listingBuilt, 'v1', { at: deps.clock.now().toISOString() });
  }

  /**
   * Cancels a flow: the request is recorded first (so every instance's promotion cancels waiting
   * steps from then on), then each started step is cancelled as a run cancel does, then the
   * waiting ones end `cancelled`. Asking again changes nothing; an ended flow is a conflict.
   */
  async function cancel(flowId: string, reason: string | null, identity: Identity): Promise<FlowView> {
    const doc = await docs.doc(flowId);
    if (!doc) throw notFound(`flow ${flowId}`);
    const ended = (await store.getDoc(FLOW_COLLECTIONS.outcomes, flowId)) as FlowOutcomeDoc | null;
    if (ended && ended.status !== 'cancelled') throw conflict(`flow ${flowId} already ended ${ended.status}`);
    const request: FlowCancelDoc = { requestedAt: deps.clock.now().toISOString(), requestedBy: identity.actor, reason };
    await store.insertDoc(FLOW_COLLECTIONS.cancels, flowId, { ...request });
    const flow = await loadFlow(store, flowId, docs.doc);
    for (const step of flow?.doc.steps ?? []) {
      if (!STARTED_STATES.has(flow!.snapshot.states.get(step.key) ?? 'missing')) continue;
      const run = flow!.runs.get(step.key);
      const target = run?.approval.replayRunId ?? run?.runId;
      if (!target) continue;
      try {
        await deps.cancelRun(target, reason, identity);
      } catch (err) {
        // It ended between the read and the cancel: nothing left to stop.
        if (!(err instanceof DomainError && err.code === 'conflict')) throw err;
      }
    }
    await advanceSoon(flowId);
    return get(flowId);
  }

  /**
   * A new flow of the same steps linked to this one (`rerunOf`): the steps before `from` that
   * succeeded are reused (reusedSteps), the rest run again, admitted as any flow is.
   */
  async function rerun(flowId: string, from: string | undefined, identity: Identity) {
    const flow = await loadFlow(store, flowId, docs.doc);
    if (!flow) throw notFound(`flow ${flowId}`);
    const reuse = reusedSteps(flow, from);
    const steps = flow.doc.steps.map(({ key, type, payload, dependsOn, onDependencyFailure, concurrencyKey, priority, tags }) => ({
      key,
      type,
      payload,
      dependsOn,
      onDependencyFailure,
      ...requestedPlacement({ concurrencyKey, priority }),
      ...requestedTags({ tags }),
    }));
    return { ...(await create({ steps, requestedBy: identity.actor, requesters: [identity.actor, ...flow.doc.requesters], rerunOf: flowId, reuse })), rerunOf: flowId };
  }

  /** A step run (or its approval replay) ended or had its approval decided: its dependents are decided. */
  async function onRunSettled(run: RunRecord): Promise<void> {
    if (!run.flowStep) return;
    await advanceSoon(run.flowStep.flowId, run.flowStep.key);
  }

  /**
   * Moves on every flow listed open: promotions an instance died before making, admissions a
   * crash cut. An entry whose flow document never came (its admission was refused by a crash
   * before the document) is dropped once it is older than any admission in progress.
   */
  async function sweep(): Promise<number> {
    const open = await store.listDocEntries(FLOW_COLLECTIONS.open);
    const now = deps.clock.now().getTime();
    for (const { id, doc } of open) {
      const flow = await advanceSoon(id).then(() => docs.doc(id));
      const since = typeof doc.since === 'string' ? Date.parse(doc.since) : 0;
      if (flow === null && now - since > ABANDONED_ADMISSION_MS) await store.deleteDoc(FLOW_COLLECTIONS.open, id);
    }
    return open.length;
  }

  let timer: NodeJS.Timeout | null = null;
  let sweeping = false;
  async function start(): Promise<void> {
    await buildListing();
    await sweep();
    timer = setInterval(() => {
      if (sweeping) return;
      sweeping = true;
      sweep()
        .catch((err: unknown) => logger.error({ err }, 'flow sweep failed'))
        .finally(() => {
          sweeping = false;
        });
    }, deps.sweepIntervalMs ?? 2000);
    timer.unref();
  }
  function stop(): void {
    if (timer) clearInterval(timer);
    timer = null;
  }

  return { create, get, list, cancel, rerun, onRunSettled, sweep, start, stop, advance: advanceSoon, buildListing };
}

export type FlowService = ReturnType<typeof createFlowService>;

/** What a pass of this process covers: an AdvanceScope whose settled set the pass owns. */
type PassScope = { all: true } | { all: false; settled: Set<string> };

/** A pass waiting for a free place, and its callers' promise. */
interface WaitingPass {
  scope: PassScope;
  done: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

interface FlowPasses {
  running: number;
  waiting: WaitingPass | null;
}

/**
 * The waiting pass's scope with `asked` added. Its settled set is the pass's own (made by
 * advanceSoon, read by nobody else until the pass starts), so it grows in place: a fan-in of a
 * thousand steps settling at once costs a thousand adds, not a thousand copies.
 */
function mergeScopes(waiting: PassScope, asked: PassScope): PassScope {
  if (waiting.all || asked.all) return { all: true };
  for (const key of asked.settled) waiting.settled.add(key);
  return waiting;
}
