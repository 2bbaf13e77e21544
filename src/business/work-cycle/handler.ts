import { stat } from 'node:fs/promises';
import { relative } from 'node:path';
import type { Clock } from '../../clock.js';
import type { RunRecord } from '../../domain/run-record.js';
import type { AppConfig } from '../../config/types.js';
import { SERVICE_RUN_ID_PREFIXES } from '../../domain/service-run-ids.js';
import { loadSkillRegistry } from '../../agents/skills.js';
import { executeEvidence, preflightToolGate } from '../../agents/tool-gate.js';
import type { StateStore } from '../../store/types.js';
import type { Admit } from '../../runtime/admission.js';
import { APPROVAL_INDEX } from '../../runtime/approval-index.js';
import type { HandlerOutcome, StateHandler } from '../../runtime/handler-types.js';
import { actorList, requestersOf } from '../../runtime/run-requesters.js';
import { resolveWorkspacePath } from '../../workspace/boundary.js';
import { inventory, manifest, search, type Inventory } from './coding-audit.js';
import { chainIdOf, claimChain } from './chain-owner.js';
import { appendInvocation, chainDirectory, evidenceFolderProblem, readCheckpoint, writeCheckpoint, type StepRecord } from './evidence.js';
import { BOUNDARY_OWNER, DEFAULT_MAX_STEPS, planWorkCycle, searchTerms, type PlanStep } from './plan.js';
import { autonomousWorkCycleType } from '../../lanes/autonomous-work-cycle/definition.js';

export const WORK_CYCLE_TASK = autonomousWorkCycleType.type;
/** The work cycle's approved tools: reading the workspace and the read-only coding audit, nothing else. */
export const WORK_CYCLE_GRANTS = ['workspace-read', 'coding-audit'] as const;

export interface WorkCycleDeps {
  store: StateStore;
  clock: Clock;
  admit: Admit;
}

function intIn(value: unknown, min: number, max: number, fallback: number): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max ? value : fallback;
}

/** The held run an approval replay carries out, by its task id. */
async function heldRunOf(store: StateStore, heldTaskId: string): Promise<RunRecord | null> {
  const index = await store.getDoc(APPROVAL_INDEX, heldTaskId);
  return typeof index?.runId === 'string' ? await store.getRun(index.runId) : null;
}

/** True when the held run is a continuation this handler admitted for `chainId`. */
function isOwnContinuation(held: RunRecord | null, chainId: string): boolean {
  return held?.source === 'system' && held.type === WORK_CYCLE_TASK && held.payload.workChainId === chainId;
}

function fail(error: string): HandlerOutcome {
  return { status: 'error', error };
}

/**
 * The in-process handler of autonomous-work-cycle: plans from `requestedOutcome`, runs the
 * read-only inspection steps through coding-audit, and stops at the first boundary step that is
 * not approved by admitting a held continuation (the approvals surface shows it; an approval
 * replays it, and the replay passes that one boundary). Checkpoint and invocations go to
 * `<logsDir>/autonomous-work/<chain>/`; a chain is its starter's (chain-owner.ts).
 */
export type WorkCycleContext = Pick<AppConfig, 'workspaceRoot' | 'logsDir'>;

export function createWorkCycleHandler(deps: WorkCycleDeps): StateHandler<WorkCycleContext> {
  const skills = loadSkillRegistry();

  async function inspect(step: Extract<PlanStep, { kind: 'inspect' }>, ctx: { root: string; config: WorkCycleContext; outcome: string; files: Inventory | null }) {
    const ws = ctx.config.workspaceRoot;
    if (step.name === 'inventory') {
      const inv = await inventory(ctx.root, ws);
      return {
        inv,
        args: { root: relative(ws, ctx.root) || '.' },
        outcome: { files: inv.files.length, skippedSecretFiles: inv.skippedSecretFiles, skipped: inv.skipped.length, truncated: inv.truncated },
        evidence: { fileCount: inv.files.length, sample: inv.files.slice(0, 20).map((f) => f.path), skippedSecretFiles: inv.skippedSecretFiles, skipped: inv.skipped, truncated: inv.truncated },
        summary: `${inv.files.length} file(s) listed; ${inv.skippedSecretFiles} secret-bearing file(s) left unread${inv.skipped.length > 0 ? `; ${inv.skipped.length} hard-linked file(s) passed by` : ''}`,
      };
    }
    if (step.name === 'search') {
      const terms = searchTerms(ctx.outcome);
      const found = await search(ctx.files?.files ?? [], ws, terms);
      return {
        inv: null,
        args: { terms },
        outcome: { filesRead: found.filesRead, matches: found.matches.length },
        evidence: { terms, matches: found.matches },
        summary: `${found.matches.length} match(es) of ${terms.length} term(s) in ${found.filesRead} file(s)`,
      };
    }
    const m = await manifest(ctx.root, ws);
    return {
      inv: null,
      args: { file: 'package.json' },
      outcome: { found: m.path !== null },
      evidence: { ...m },
      summary: m.path ? `manifest ${m.path}: ${m.scripts.length} script(s), ${m.dependencies.length} dependenc(ies)` : 'no package.json in the project root',
    };
  }

  return async (_state, config, input): Promise<HandlerOutcome> => {
    const { payload, runId } = input;
    const now = () => deps.clock.now().toISOString();
    const startedAt = Date.now();
    const outcome = typeof payload.requestedOutcome === 'string' ? payload.requestedOutcome.trim() : '';
    if (!outcome) return fail('requestedOutcome is required: a concise statement of what the cycle should achieve');
    const maxSteps = intIn(payload.maxSteps, 1, 25, DEFAULT_MAX_STEPS);
    const projectRoot = typeof payload.projectRoot === 'string' ? payload.projectRoot : '.';
    let root: string;
    try {
      root = resolveWorkspacePath(config.workspaceRoot, projectRoot);
    } catch (err) {
      return fail(`projectRoot ${(err as Error).message}`);
    }
    if (!(await stat(root).catch(() => null))?.isDirectory()) return fail(`projectRoot ${projectRoot} is not a directory of the workspace`);

    const preflight = preflightToolGate({
      taskType: WORK_CYCLE_TASK,
      agent: { id: WORK_CYCLE_TASK, allowedSkills: [...WORK_CYCLE_GRANTS] },
      registry: skills,
      now: now(),
    });
    if (preflight.decision === 'refused') return fail(preflight.reason ?? 'tool gate refused coding inspection');

    // Approval comes from the run record the service wrote, never from the payload.
    const run = await deps.store.getRun(runId);
    const approvedFromTaskId = run?.source === 'approval-replay' ? run.approvedFromTaskId : null;
    const chainId = chainIdOf({ runId, taskId: input.taskId, payload });
    if (chainId === null) return fail(`workChainId ${JSON.stringify(payload.workChainId)} is not a name: letters, digits, ".", "_", "-", starting with a letter or digit, at most 100`);
    const resumeFrom = intIn(payload.resumeFromStep, 0, 25, 0);
    // The evidence folders are checked when used: one swapped for a link would carry the evidence outside.
    const folderRefused = evidenceFolderProblem(config.logsDir, chainId, config);
    if (folderRefused) return fail(`refused: ${folderRefused}`);
    const dir = chainDirectory(config.logsDir, chainId);
    // Approvals recorded earlier in the chain count only for the service's own continuation of
    // that chain (a held run it admitted), never for a payload that merely names the chain.
    const held = approvedFromTaskId !== null ? await heldRunOf(deps.store, approvedFromTaskId) : null;
    const continuesChain = isOwnContinuation(held, chainId);
    if (!continuesChain) {
      // The chain is its starter's: an approval replay acts for whoever asked for the held run.
      const actor = held?.requestedBy ?? run?.requestedBy ?? 'unknown';
      const notOurs = await claimChain(deps.store, chainId, actor, payload.workChainId === undefined, now());
      if (notOurs) return fail(`refused: ${notOurs}`);
    }
    const checkpoint = continuesChain ? await readCheckpoint(dir) : null;
    const previous = checkpoint?.requestedOutcome === outcome ? checkpoint : null;

    const plan = planWorkCycle(outcome, maxSteps);
    const records: StepRecord[] = [];
    let files: Inventory | null = null;
    let stoppedAt: { step: number; boundary: string; approvalRunId: string; approvalTaskId: string } | null = null;

    for (const step of plan.steps) {
      if (step.kind === 'inspect') {
        const started = Date.now();
        const done = await inspect(step, { root, config, outcome, files });
        if (done.inv) files = done.inv;
        await appendInvocation(dir, { at: now(), runId, step: step.index, tool: 'coding-audit', args: done.args, outcome: done.outcome, durationMs: Date.now() - started });
        records.push({ index: step.index, kind: 'inspect', name: step.name, status: 'done', runId, at: now(), summary: done.summary, evidence: done.evidence });
        continue;
      }
      const approvedEarlier = previous?.steps.find((s) => s.index === step.index && s.status === 'approved');
      if (approvedEarlier) {
        records.push(approvedEarlier);
        continue;
      }
      if (approvedFromTaskId && step.index === resumeFrom) {
        records.push({
          index: step.index,
          kind: 'boundary',
          name: step.boundary,
          status: 'approved',
          runId,
          at: now(),
          summary: `approved (held task ${approvedFromTaskId}); handed to ${BOUNDARY_OWNER[step.boundary]}; the cycle itself does not perform it`,
          evidence: { approvedFromTaskId, owner: BOUNDARY_OWNER[step.boundary] },
        });
        continue;
      }
      const held = await deps.admit({
        type: WORK_CYCLE_TASK,
        payload: {
          requestedOutcome: outcome,
          projectRoot,
          maxSteps,
          workChainId: chainId,
          resumeFromStep: step.index,
          requiresApproval: true,
          ...(payload.intake && typeof payload.intake === 'object' ? { intake: payload.intake } : {}),
        },
        source: 'system',
        requestedBy: `task:${WORK_CYCLE_TASK}`,
        // The continuation is this cycle's work: whoever asked for the cycle cannot approve it alone.
        requesters: actorList([`task:${WORK_CYCLE_TASK}`], run ? requestersOf(run) : []),
        // One continuation per executing task and step: a re-execution of this run finds it again.
        forceRunId: `${SERVICE_RUN_ID_PREFIXES.workApproval}${input.taskId}:step-${step.index}`,
      });
      stoppedAt = { step: step.index, boundary: step.boundary, approvalRunId: held.run.runId, approvalTaskId: held.run.taskId };
      records.push({
        index: step.index,
        kind: 'boundary',
        name: step.boundary,
        status: 'awaiting-approval',
        runId,
        at: now(),
        summary: `stopped at the ${step.boundary} boundary; approval ${held.run.taskId} is pending`,
      });
      break;
    }

    await writeCheckpoint(dir, { chainId, requestedOutcome: outcome, projectRoot, lastRunId: runId, updatedAt: now(), steps: records, stoppedAt });
    const toolGate = { preflight, execute: executeEvidence(preflight, { ok: true, durationMs: Date.now() - startedAt, failureReason: null }, now()) };
    const rel = (name: string) => relative(config.logsDir, `${dir}/${name}`);
    const recommendedNextActions = stoppedAt
      ? [`Decide approval ${stoppedAt.approvalTaskId} (POST /api/approvals/${stoppedAt.approvalTaskId}/decision): approving lets the cycle pass the ${stoppedAt.boundary} boundary.`]
      : plan.omitted.length > 0
        ? [`Raise maxSteps above ${maxSteps} to plan the ${plan.omitted.length} remaining step(s).`]
        : [];
    return {
      status: 'completed',
      toolGate,
      result: {
        requestedOutcome: outcome,
        projectRoot,
        chainId,
        maxSteps,
        plan: plan.steps,
        omittedSteps: plan.omitted.map((s) => ({ index: s.index, reason: 'beyond maxSteps' })),
        steps: records,
        stoppedAt,
        completed: stoppedAt === null,
        toolGate: { tool: 'coding-audit', mode: 'read-only', preflight },
        checkpointPath: rel('checkpoint.json'),
        invocationsPath: rel('invocations.jsonl'),
        operatorSummary: stoppedAt
          ? `Inspected ${projectRoot} read-only; stopped at the ${stoppedAt.boundary} boundary for approval.`
          : `Inspected ${projectRoot} read-only in ${records.length} step(s); no boundary left to cross.`,
        recommendedNextActions,
        specialistContract: {
          role: autonomousWorkCycleType.type,
          workflowStage: stoppedAt ? 'awaiting-approval' : 'inspected',
          deliverable: 'inspection evidence and a checkpoint',
          status: stoppedAt ? 'blocked' : 'completed',
          refusalReason: null,
          escalationReason: stoppedAt ? `${stoppedAt.boundary} boundary needs an operator` : null,
        },
      },
    };
  };
}
