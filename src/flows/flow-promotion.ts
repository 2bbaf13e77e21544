import type { Clock } from '../clock.js';
import type { CacheInvalidator } from '../domain/cache-invalidation.js';
import { DomainError, type ErrorDetail } from '../domain/errors.js';
import type { RunRecord } from '../domain/run-record.js';
import type { StateStore } from '../store/types.js';
import type { TriggerCheck } from '../runtime/trigger-check.js';
import { runWriteTags } from '../runtime/admission.js';
import { indexHeldRun } from '../runtime/approval-index.js';
import { applyCancelRequest } from '../runtime/run-cancellation.js';
import { FLOW_COLLECTIONS, flowStepRunId, type FlowDoc } from './flow-definition.js';
import type { FlowDocs, IndexedFlowDoc } from './flow-docs.js';
import { decideStep, flowStatusOf, planFlow, type StepAction } from './flow-plan.js';
import { loadFlow, type FlowCancelDoc, type FlowOutcomeDoc, type LoadedFlow } from './flow-reader.js';
import { describeReference, findReferences, referenceSource, resolveReferences } from './flow-references.js';
import { ENDED_STEP_STATES, stepStateOf, workRunOf, type FlowStepState } from './flow-step-state.js';
import { failWaiting, isWaiting, promoteWaiting, skipWaiting } from './flow-transitions.js';

export interface FlowAdvanceDeps {
  store: StateStore;
  clock: Clock;
  invalidator: CacheInvalidator;
  /** Called after a step became claimable, so a runner picks it up at once. */
  onReady: () => void;
  /** Checks a step's payload once its references are resolved, as the trigger route checks one. */
  checkTrigger: TriggerCheck;
  /** Writes the step runs a cut admission left out (idempotent: FlowAdmission.ensureSteps). */
  ensureSteps: (doc: FlowDoc) => Promise<void>;
  /** Flow definitions with their step and dependents indexes (flow-docs.ts). */
  docs: FlowDocs;
}

/** What moves a flow on: everything (`all`), or the steps whose runs settled (their dependents are decided). */
export type AdvanceScope = { all: true } | { all: false; settled: ReadonlySet<string> };

/** Run statuses of a step (or its replay) that has not ended: while a flow has one, it has not ended. */
const UNENDED_STATUSES = ['waiting', 'pending', 'running', 'retrying'] as const;

/** Flows remembered as checked for `fail` skips stored before failure records (unrecordedFailure). */
const KEPT_CHECKS = 10_000;

/** Dependencies read at once while a step is decided: a fan-in stops at the first group holding one not ended. */
const DEPENDENCY_READ_GROUP = 32;

/** A step's run and, for an approved step, its replay: what its state and result are read from. */
interface StepRuns {
  run: RunRecord | null;
  replay: RunRecord | null;
}

/**
 * Moves a flow on from what is stored: completes a cut admission, promotes each waiting step
 * whose dependencies ended (or skips or cancels it, by its policy and the flow's cancel), and
 * records the flow's end once every step ended. Every write is a compare-and-set on a run still
 * `waiting`, and the end is an insert-if-absent, so any number of calls, from any instance, at
 * any time, promote each step once and end the flow once. It keeps nothing in memory.
 *
 * What it reads is bounded by what changed: a settled step reads its dependents and their
 * dependencies by id (primary-key reads); the sweep reads a flow's unended runs by the flow id
 * index; only a flow's cancel, its failure (a `fail` skip), a cut admission or its end read the
 * whole flow.
 */
export function createFlowAdvance(deps: FlowAdvanceDeps) {
  const { store, docs } = deps;
  /** Open flows this process found no unrecorded `fail` skip in: only saves their re-reading (it forgets past KEPT_CHECKS). */
  const checkedForUnrecorded = new Set<string>();
  const load = (flowId: string) => loadFlow(store, flowId, docs.doc);

  /**
   * The payload a promoted step runs with: its `$from` references replaced by its dependencies'
   * values (an approved dependency's from its replay) and checked against its payload schema;
   * or why it cannot run, naming the reference or the schema's complaint.
   */
  function payloadAtPromotion(run: RunRecord, stepOf: (key: string) => StepRuns | undefined): { ok: true; payload: Record<string, unknown> } | { ok: false; reason: string } {
    if (findReferences(run.payload).length === 0) return { ok: true, payload: run.payload };
    const resolved = resolveReferences(run.payload, (key) => {
      const step = stepOf(key);
      const work = workRunOf(step?.run ?? null, step?.replay ?? null);
      return work ? referenceSource(work) : null;
    });
    if (!resolved.ok) return { ok: false, reason: `payload${resolved.at}: the reference ${describeReference(resolved.missing)} has no value` };
    try {
      return { ok: true, payload: deps.checkTrigger({ type: run.type, payload: resolved.payload }).payload };
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      const details = Array.isArray(err.details) ? (err.details as ErrorDetail[]) : [];
      return { ok: false, reason: [`the payload with its references resolved is refused: ${err.message}`, ...details.map((d) => `${d.path} ${d.message}`)].join('; ') };
    }
  }

  /**
   * Writes one decision as a compare-and-set on the step's run still `waiting` (waiting ->
   * pending, skipped, failed or cancelled); the run as written, or null when another writer
   * decided it first.
   */
  async function apply(flowId: string, action: StepAction, stepOf: (key: string) => StepRuns | undefined, cancel: FlowCancelDoc | null): Promise<RunRecord | null> {
    const now = deps.clock.now();
    const runId = flowStepRunId(flowId, action.key);
    const stored = stepOf(action.key)?.run ?? null;
    const payload = action.kind === 'promote' && stored ? payloadAtPromotion(stored, stepOf) : null;
    // The flow's failure is recorded before the skip that fails it: a crash between leaves the
    // record, which sends the next pass over the whole flow, never a skip nobody looks for.
    if (action.kind === 'skip' && action.policy === 'fail' && isWaiting(stored)) {
      await store.insertDoc(FLOW_COLLECTIONS.failed, flowId, { at: now.toISOString(), step: action.key });
    }
    const written = await store.mutateRun(runId, (current) => {
      if (!isWaiting(current)) return null;
      if (action.kind === 'promote') {
        if (payload && !payload.ok) return failWaiting(current, now, payload.reason);
        return promoteWaiting(current, now, payload?.payload);
      }
      if (action.kind === 'skip') return skipWaiting(current, now, { policy: action.policy, reason: action.reason });
      return applyCancelRequest(current, now, { actor: cancel?.requestedBy ?? 'service', reason: cancel?.reason ?? 'the flow was cancelled' });
    });
    if (!written.changed || !written.after) return null;
    const run = written.after;
    await deps.invalidator.invalidate(runWriteTags(run, written.before?.status ?? null));
    if (run.queueState === 'held') await indexHeldRun(store, run);
    if (run.queueState === 'ready') deps.onReady();
    return run;
  }

  /** The whole flow read, decided by planFlow and written, until nothing is left to decide; then its end. */
  async function advanceAll(flowId: string): Promise<LoadedFlow | null> {
    let flow = await load(flowId);
    if (!flow) return null;
    if (flow.outcome) {
      // Its end was recorded but a crash may have kept it listed as open.
      await store.deleteDoc(FLOW_COLLECTIONS.open, flowId);
      return flow;
    }
    if ([...flow.snapshot.states.values()].some((state) => state === 'missing')) {
      await deps.ensureSteps(flow.doc);
      flow = (await load(flowId))!;
    }
    // Until no step is left to decide: a promotion can end in a failure (an unresolved reference)
    // that its dependents decide on in turn. Each round takes at least one step out of `waiting`.
    for (let actions = planFlow(flow.doc, flow.snapshot); actions.length > 0; actions = planFlow(flow.doc, flow.snapshot)) {
      const loaded = flow;
      const stepOf = (key: string): StepRuns => ({ run: loaded.runs.get(key) ?? null, replay: loaded.replays.get(key) ?? null });
      await Promise.all(actions.map((action) => apply(flowId, action, stepOf, loaded.cancel)));
      flow = (await load(flowId))!;
    }
    const status = flowStatusOf(flow.doc, flow.snapshot);
    if (status !== 'running' && !flow.outcome) {
      const outcome: FlowOutcomeDoc = { status, endedAt: deps.clock.now().toISOString() };
      await store.insertDoc(FLOW_COLLECTIONS.outcomes, flowId, { ...outcome });
      await store.deleteDoc(FLOW_COLLECTIONS.open, flowId);
      flow = (await load(flowId))!;
    }
    return flow;
  }

  /** True while one of the flow's runs (a step's, or an approved step's replay) has not ended: one index read each status, the first found answers. */
  async function hasUnendedRun(flowId: string): Promise<boolean> {
    for (const status of UNENDED_STATUSES) {
      const { items } = await store.listRuns({ flowId, status, includeInternal: true, limit: 1 });
      if (items.length > 0) return true;
    }
    return false;
  }

  /**
   * A step's dependencies' runs, read by id a group at a time, with their states; null at the
   * first group holding one not ended (the step waits on: the rest need not be read). Read from
   * just after a dependency that settled (`settled`), wrapping round: steps are claimed in
   * admission order, so in a fan-in the ones listed after the step that just ended are the
   * likeliest still running, where reading from the start would pass over every one ended so far.
   */
  async function endedDependencies(step: FlowDoc['steps'][number], settled: ReadonlySet<string>, stepRuns: (key: string) => Promise<StepRuns>) {
    const runs: Array<readonly [string, StepRuns]> = [];
    const states = new Map<string, FlowStepState>();
    const from = step.dependsOn.length > DEPENDENCY_READ_GROUP ? step.dependsOn.findIndex((dep) => settled.has(dep)) + 1 : 0;
    const order = from === 0 ? step.dependsOn : [...step.dependsOn.slice(from), ...step.dependsOn.slice(0, from)];
    for (let i = 0; i < order.length; i += DEPENDENCY_READ_GROUP) {
      const group = await Promise.all(order.slice(i, i + DEPENDENCY_READ_GROUP).map(async (dep) => [dep, await stepRuns(dep)] as const));
      for (const [dep, read] of group) {
        const state = stepStateOf(read.run, read.replay, true);
        if (!ENDED_STEP_STATES.has(state)) return null;
        states.set(dep, state);
        runs.push([dep, read]);
      }
    }
    return { runs, states };
  }

  /**
   * Decides the waiting steps among `candidates` from their dependencies' runs, read by id, and
   * writes each decision; a step that thereby ended (skipped, or failed on a reference) has its
   * dependents decided in turn. `whole`: the flow must be read whole, a step was skipped under
   * `fail` (every waiting step is skipped from then on). `unendedSeen`: a step was left waiting
   * on a dependency not ended, or promoted (by this pass or another) and not ended, so the flow
   * has not ended (no need to look).
   */
  async function decideSteps(flow: IndexedFlowDoc, candidates: readonly string[], settled: ReadonlySet<string>): Promise<{ whole: boolean; unendedSeen: boolean }> {
    const { doc, byKey, dependents } = flow;
    let keys = [...new Set(candidates)];
    let unendedSeen = false;
    while (keys.length > 0) {
      // Read afresh each round: the previous round's writes changed some of these runs.
      const read = new Map<string, Promise<StepRuns>>();
      const stepRuns = (key: string): Promise<StepRuns> => {
        let pending = read.get(key);
        if (!pending) read.set(key, (pending = readStep(flow, key)));
        return pending;
      };
      const ended: string[] = [];
      let whole = false;
      await Promise.all(
        keys.map(async (key) => {
          const step = byKey.get(key);
          if (!step) return;
          const own = await stepRuns(key);
          if (own.run === null) return;
          if (!isWaiting(own.run)) {
            // Decided by another pass already: one not ended says the flow has not ended either.
            if (!ENDED_STEP_STATES.has(stepStateOf(own.run, own.replay, true))) unendedSeen = true;
            return;
          }
          const dependencies = await endedDependencies(step, settled, stepRuns);
          if (!dependencies) {
            unendedSeen = true;
            return;
          }
          const known = new Map<string, StepRuns>([[key, own], ...dependencies.runs]);
          const action = decideStep(step, dependencies.states, new Map(), false);
          if (!action) return;
          const written = await apply(doc.flowId, action, (k) => known.get(k), null);
          if (action.kind === 'skip' && action.policy === 'fail') whole = true;
          if (!written) return;
          if (ENDED_STEP_STATES.has(stepStateOf(written, null, true))) ended.push(key);
          else unendedSeen = true;
        }),
      );
      if (whole) return { whole, unendedSeen };
      keys = [...new Set(ended.flatMap((key) => dependents.get(key) ?? []))];
    }
    return { whole: false, unendedSeen };
  }

  /**
   * True when a step of the flow was skipped under `fail` and no failure record says so: skips
   * stored before the record existed (its skipped runs, by the flow id index). Looked for once per
   * open flow in each process (`checkedForUnrecorded`): every skip since is recorded first.
   */
  async function unrecordedFailure(flowId: string, steps: number): Promise<boolean> {
    if (checkedForUnrecorded.has(flowId)) return false;
    const { items } = await store.listRuns({ flowId, status: 'skipped', includeInternal: true, limit: steps });
    const failed = items.some((run) => run.flowStep?.skipped?.policy === 'fail' || run.flowStep?.skipped?.policy === 'flow-failed');
    if (!failed) {
      if (checkedForUnrecorded.size >= KEPT_CHECKS) checkedForUnrecorded.clear();
      checkedForUnrecorded.add(flowId);
    }
    return failed;
  }

  /** A step's run by its id, and an approved step's replay by its id: primary-key reads. */
  async function readStep(flow: IndexedFlowDoc, key: string): Promise<StepRuns> {
    const step = flow.byKey.get(key);
    const run = await store.getRun(step?.reusedRunId ?? flowStepRunId(flow.doc.flowId, key));
    const replay = run?.approval.replayRunId ? await store.getRun(run.approval.replayRunId) : null;
    return { run, replay };
  }

  /**
   * Moves a flow on. `settled`: the dependents of those steps are decided from their
   * dependencies read by id; `all` (admission, cancel, the sweep): the flow's waiting steps are
   * found by the flow id index and decided the same way. A flow cancelled, failed under `fail`,
   * cut at admission or out of unended runs is read whole (advanceAll), which records its end;
   * whether it is out of them is looked up only when no step seen was left unended.
   */
  async function advance(flowId: string, scope: AdvanceScope = { all: true }): Promise<void> {
    const [flow, outcome, cancel, admitted, failed] = await Promise.all([
      docs.read(flowId),
      store.getDoc(FLOW_COLLECTIONS.outcomes, flowId),
      store.getDoc(FLOW_COLLECTIONS.cancels, flowId),
      store.getDoc(FLOW_COLLECTIONS.admitted, flowId),
      store.getDoc(FLOW_COLLECTIONS.failed, flowId),
    ]);
    if (!flow || outcome || cancel || !admitted || failed) {
      if (flow) await advanceAll(flowId);
      return;
    }
    const { doc, dependents } = flow;
    let candidates: string[];
    if (scope.all) {
      // A flow failed under `fail` (its failure record was read above) skips every waiting step;
      // one failed before the record existed is found by its skipped runs.
      if (await unrecordedFailure(flowId, doc.steps.length)) return void (await advanceAll(flowId));
      // Waiting steps whose dependencies may have ended: those none of whose dependencies is still waiting.
      const { items } = await store.listRuns({ flowId, status: 'waiting', includeInternal: true, limit: doc.steps.length });
      const waiting = new Set(items.map((run) => run.flowStep?.key).filter((key): key is string => key !== undefined));
      candidates = doc.steps.filter((s) => waiting.has(s.key) && !s.dependsOn.some((dep) => waiting.has(dep))).map((s) => s.key);
    } else {
      candidates = [...scope.settled].flatMap((key) => dependents.get(key) ?? []);
    }
    const decided = await decideSteps(flow, candidates, scope.all ? new Set() : scope.settled);
    if (decided.whole || (!decided.unendedSeen && !(await hasUnendedRun(flowId)))) await advanceAll(flowId);
  }

  return { advance, advanceAll };
}
