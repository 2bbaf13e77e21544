import { displayText } from '../../src/worker-sdk/display-text.js';
import { refuseLane, specialistContract, type LaneContext, type LaneResult } from '../../src/worker-sdk/lane-result.js';
import {
  decideSandbox,
  projectFolder,
  SANDBOX_PAYLOAD_KEY,
  SANDBOX_REFUSAL_ACTION,
  sandboxPolicyOf,
  type SandboxDecider,
} from '../../src/worker-sdk/project-command.js';
import { describeActions, fileChangeOf, type FileChange } from './file-evidence.js';
import { ApplyError, FileTransaction } from './file-transaction.js';
import { planChanges } from './plan-changes.js';
import { readInput, type BuildRefactorInput, type BuildRefactorPayload } from './read-input.js';
import { resolveScope } from './scope.js';
import { planVerification, type VerificationPlan } from './verification-plan.js';
import { DEFAULT_VERIFICATION_TIMEOUT_MS, runVerification, type Verification, type VerificationSandbox } from './verify.js';

/** The approval and bounds a run worked under, recorded with its evidence. */
export interface Governance {
  scope: string | null;
  maxFilesChanged: number | null;
  changeType: string | null;
  intent: string | null;
  /** The held task this run replays after an operator approved it, when it is such a replay. */
  approvedTaskId: string | null;
  approvalNote: string;
}

/** Fields every build-refactor answer carries, whatever happened. */
type RefactorFields = {
  filesChanged: FileChange[];
  /** Files written and then put back because the change set could not be completed or verified. */
  revertedFiles: FileChange[];
  /** Files the change set named whose content ended up exactly as it was; not written. */
  unchangedFiles: string[];
  verification: Verification | null;
  rolledBack: boolean;
  governance: Governance;
  /** Every reason the change set was not applied, when it was not. */
  problems: string[];
};

export type BuildRefactorResult = LaneResult<RefactorFields & { error?: string }>;

export interface BuildRefactorOptions {
  verificationTimeoutMs?: number;
  /** How the verification script is run on this host (default: bubblewrap when available, else the payload's policy). */
  decideSandbox?: SandboxDecider;
}

const IDENTITY = { role: 'build-refactor-agent', workflowStage: 'build-refactor', deliverable: 'scoped code change with verification evidence' };
const APPROVAL_REPLAY_PREFIX = 'approval-replay:';

function governanceOf(input: BuildRefactorInput, scope: string, runId: string | null): Governance {
  const approvedTaskId = runId?.startsWith(APPROVAL_REPLAY_PREFIX) ? runId.slice(APPROVAL_REPLAY_PREFIX.length) : null;
  const approvalNote =
    approvedTaskId !== null
      ? `approved by an operator: this run replays held task ${approvedTaskId}`
      : `not an approval replay (run ${runId ?? 'outside the service'}); build-refactor is approval-gated by default`;
  return {
    scope,
    maxFilesChanged: input.maxFilesChanged,
    changeType: input.changeType,
    intent: input.intent,
    approvedTaskId,
    approvalNote,
  };
}

function emptyFields(governance: Governance, problems: string[]): RefactorFields {
  return { filesChanged: [], revertedFiles: [], unchangedFiles: [], verification: null, rolledBack: false, governance, problems };
}

function refuse(reason: string, actions: string[], governance: Governance, problems: string[] = [reason]): BuildRefactorResult {
  return { ...refuseLane(IDENTITY, reason, actions), ...emptyFields(governance, problems) };
}

/** A run that wrote files and then had to put them back; escalated, because a person must decide what next. */
function revert(
  reason: string,
  fields: Pick<RefactorFields, 'revertedFiles' | 'unchangedFiles' | 'verification' | 'governance'>,
  unrestored: string[],
  actions: string[],
): BuildRefactorResult {
  const restored = unrestored.length === 0;
  const escalationReason = restored
    ? `${reason}; every change was rolled back`
    : `${reason}; the rollback could not restore ${unrestored.join('; ')}`;
  return {
    success: false,
    error: escalationReason,
    operatorSummary: `Not applied: ${escalationReason}.`,
    recommendedNextActions: restored ? actions : [`Restore by hand: ${unrestored.join('; ')}.`, ...actions],
    specialistContract: specialistContract({ ...IDENTITY, status: 'escalated', escalationReason }),
    ...fields,
    filesChanged: restored ? [] : fields.revertedFiles,
    rolledBack: restored,
    problems: [reason, ...unrestored.map((u) => `not restored: ${u}`)],
  };
}

function verificationSummary(verification: Verification): string {
  const counts =
    verification.passed !== null || verification.failed !== null
      ? ` (${verification.passed ?? '?'} passed, ${verification.failed ?? '?'} failed)`
      : '';
  const outcome = { passed: 'passed', failed: `failed with exit code ${verification.exitCode ?? verification.signal}`, 'timed-out': 'timed out', 'not-started': 'could not start' }[verification.verdict];
  return `${verification.command} in ${verification.project} ${outcome}${counts}${verification.sandbox === 'none' ? ` (${verification.sandboxNote})` : ''}`;
}

/**
 * The build-refactor lane: applies an explicit, scoped change set all or nothing, then
 * optionally verifies it with a whitelisted npm script of the project and rolls everything back
 * when the verification does not pass. Intent-only requests are refused: turning an intent into
 * edits needs a model provider, and this lane has none.
 */
export async function buildRefactor(
  payload: BuildRefactorPayload,
  context: LaneContext,
  options: BuildRefactorOptions = {},
): Promise<BuildRefactorResult> {
  const input = readInput(payload);
  const scope = resolveScope(context.workspaceRoot, input.scope);
  const governance = governanceOf(input, 'problem' in scope ? input.scope : scope.relative, context.runId);
  if (input.changes === null) {
    return refuse(
      'intent-only request: explicit changes[] are required on the deterministic path (no LLM provider is configured to turn the intent into edits)',
      ['Resend the task with changes[] listing each edit as {path, search, replace}, {path, content} or {path, delete: true}.'],
      governance,
    );
  }
  if (input.changes.length === 0) {
    return refuse('changes[] is empty: there is nothing to apply', ['Resend the task with at least one change.'], governance);
  }
  if ('problem' in scope) return refuse(scope.problem, ['Resend the task with a scope that exists inside the workspace.'], governance);

  const plan = planChanges(context.workspaceRoot, scope, input.changes, input.maxFilesChanged);
  if ('problems' in plan) {
    return refuse(
      `the change set was not applied and no file changed: ${plan.problems.join('; ')}`,
      ['Fix the listed changes (paths inside the scope, search texts that match exactly once, at most maxFilesChanged files) and resend.'],
      governance,
      plan.problems,
    );
  }
  let verificationPlan: VerificationPlan | null = null;
  let sandbox: VerificationSandbox | null = null;
  if (input.verifyScript !== null) {
    const planned = planVerification(context.workspaceRoot, scope, input.verifyScript);
    if ('problem' in planned) {
      return refuse(`the change set was not applied and no file changed: ${planned.problem}`, ['Name a test, test:<name>, lint, typecheck or build script the project defines, or drop the verification.'], governance);
    }
    // The verification runs the project's own code: without a sandbox the operator allows, the
    // change set is not applied either (it would stay unverified).
    const decide = options.decideSandbox ?? ((policy) => decideSandbox(policy));
    const decision = decide(sandboxPolicyOf(payload[SANDBOX_PAYLOAD_KEY]));
    if ('refused' in decision) {
      return refuse(`the change set was not applied and no file changed: ${decision.refused}`, [SANDBOX_REFUSAL_ACTION], governance);
    }
    const folder = projectFolder(context.workspaceRoot, planned.projectDir);
    if ('problem' in folder) {
      return refuse(`the change set was not applied and no file changed: ${planned.project}: ${folder.problem}`, ['Verify with a project whose folder lies inside the workspace.'], governance);
    }
    verificationPlan = { ...planned, projectDir: folder.dir };
    sandbox = decision;
  }

  // File-system errors and a script's output name files by their absolute paths; results never do.
  const shown = (text: string) => displayText(text, { workspaceRoot: context.workspaceRoot });
  const changes = plan.files.map(fileChangeOf);
  const transaction = new FileTransaction(context.workspaceRoot, plan.files);
  try {
    transaction.apply();
  } catch (err) {
    if (!(err instanceof ApplyError)) throw err;
    return revert(shown(err.message), { revertedFiles: changes, unchangedFiles: plan.unchanged, verification: null, governance }, err.unrestored.map(shown), [
      'Check why the file could not be written (permissions, a file where a folder is expected) and resend.',
    ]);
  }

  let verification: Verification | null = null;
  if (verificationPlan !== null && sandbox !== null) {
    let interrupted = false;
    const ran = await runVerification(verificationPlan, options.verificationTimeoutMs ?? DEFAULT_VERIFICATION_TIMEOUT_MS, sandbox, () => {
      interrupted = true;
      transaction.rollback();
    });
    verification = { ...ran, outputTail: shown(ran.outputTail) };
    if (verification.verdict !== 'passed' || interrupted) {
      // After an interrupt the guard has already rolled back; a second rollback finds nothing to undo.
      const unrestored = transaction.rollback().map(shown);
      return revert(`verification ${verificationSummary(verification)}`, { revertedFiles: changes, unchangedFiles: plan.unchanged, verification, governance }, unrestored, [
        `Read verification.outputTail, fix the change set so ${verificationPlan.command} passes, and resend it.`,
      ]);
    }
  }

  const where = `${changes.length} file${changes.length === 1 ? '' : 's'} in ${scope.relative} (${describeActions(changes)})`;
  return {
    success: true,
    operatorSummary: `Applied ${where}${verification ? `; ${verificationSummary(verification)}` : '; not verified'}.`,
    recommendedNextActions: [
      `Review the changes to ${changes.map((c) => c.path).join(', ')} before committing; the lane never commits or pushes.`,
      ...(verification === null ? ['Run the project tests (constraints.runTests or testRunner.script): this change set was not verified.'] : []),
      ...(verification?.sandbox === 'none'
        ? ["Install bubblewrap on the service host (apt-get install bubblewrap): the verification ran unsandboxed, with everything the service's user can read and write within its reach."]
        : []),
    ],
    specialistContract: specialistContract({ ...IDENTITY, status: 'completed' }),
    filesChanged: changes,
    revertedFiles: [],
    unchangedFiles: plan.unchanged,
    verification,
    rolledBack: false,
    governance,
    problems: [],
  };
}
