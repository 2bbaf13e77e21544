import { realpathSync } from 'node:fs';
import { displayText } from '../../src/worker-sdk/display-text.js';
import { refuseLane, specialistContract, type LaneContext, type LaneRefusal, type LaneResult } from '../../src/worker-sdk/lane-result.js';
import {
  decideSandbox,
  projectFolder,
  runProjectCommand,
  SANDBOX_PAYLOAD_KEY,
  SANDBOX_REFUSAL_ACTION,
  sandboxPolicyOf,
  type ProjectCommandOutcome,
  type SandboxDecider,
  type SandboxKind,
} from '../../src/worker-sdk/project-command.js';
import { workspaceRelativeFailures } from './failure-paths.js';
import { tailLines } from './output-buffer.js';
import { parseTestOutput } from './parse-summary.js';
import { buildPlan, type PlanStep } from './plan.js';
import { readTargetProject, type TargetProject } from './read-project.js';
import { readQaInput, type QaInput, type QaMode, type QaPayload } from './read-input.js';
import { suiteEnv } from './suite-env.js';
import type { FailedTest, RunnerName } from './test-summary.js';

/** A suite's output is kept up to this size (its end); runners print their summary last. */
export const OUTPUT_CAP_BYTES = 1024 * 1024;
export const OUTPUT_TAIL_LINES = 40;
/** Failures listed by name; the counts still say how many there were. */
export const MAX_LISTED_FAILURES = 100;

const IDENTITY = { role: 'qa-verification-agent', workflowStage: 'verify', deliverable: 'verification plan and test results' };

type QaBase = { target: string; suite: string; mode: QaMode; script: string; plan: PlanStep[] };

/** Where the suite ran: in bubblewrap, or (by the operator's opt-in only) unsandboxed, and the note that says so. */
type SandboxFields = { sandbox: SandboxKind; sandboxNote: string };

/** What the lane is given besides its payload and context. */
export interface QaDeps {
  /** How project code is run on this host (default: bubblewrap when available, else the payload's policy). */
  decideSandbox?: SandboxDecider;
}

export type QaDryRun = LaneResult<QaBase & { success: true; mode: 'dry-run' }>;

export type QaExecution = LaneResult<
  QaBase & SandboxFields & {
    success: true;
    mode: 'execute';
    /** "failed" when a test failed or the script exited non-zero; red tests are findings, not a lane failure. */
    verdict: 'passed' | 'failed';
    runner: RunnerName | null;
    passed: number | null;
    failed: number | null;
    skipped: number | null;
    failures: FailedTest[];
    durationMs: number;
    exitCode: number | null;
    outputTail: string;
    outputTruncated: boolean;
  }
>;

export type QaOutcome = QaDryRun | QaExecution | (LaneRefusal & Record<string, unknown>);

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function scriptNote(script: string, suite: string): string {
  return script === `test:${suite}` ? `npm run ${script}` : `npm run ${script} (the project has no test:${suite} script)`;
}

function dryRun(input: QaInput, base: QaBase): QaDryRun {
  const actions = [`Trigger qa-verification again with mode "execute" to run ${base.script} in ${base.target}.`];
  if (base.script !== `test:${input.suite}`) {
    actions.push(`Add a "test:${input.suite}" script to ${base.target}/package.json to give suite "${input.suite}" its own command; until then it runs "${base.script}".`);
  }
  return {
    success: true,
    ...base,
    mode: 'dry-run',
    operatorSummary: `Planned suite "${input.suite}" of ${base.target}: ${scriptNote(base.script, input.suite)} in ${base.target}. Nothing was run (dry-run).`,
    recommendedNextActions: actions,
    specialistContract: specialistContract({ ...IDENTITY, status: 'completed' }),
  };
}

/** Why a suite could not run at all, or null when it ran (whatever its tests did). */
function notRunReason(outcome: ProjectCommandOutcome, summaryFound: boolean, base: QaBase, timeoutMs: number): string | null {
  if (outcome.spawnError !== null) return `could not start npm in ${base.target}: ${outcome.spawnError}`;
  if (outcome.timedOut) return `suite "${base.suite}" (npm run ${base.script}) did not finish within ${timeoutMs} ms; its process group was killed`;
  if (!summaryFound && outcome.exitCode !== 0) {
    const ending = outcome.exitCode === null ? `was ended by ${outcome.signal ?? 'a signal'}` : `exited ${outcome.exitCode}`;
    return `npm run ${base.script} ${ending} without a test summary (node:test, TAP, Jest, Vitest or Mocha): the suite did not run`;
  }
  return null;
}

/** The sentence an operator reads at the end of a summary when the suite ran without a sandbox. */
function unsandboxedWarning(sandbox: SandboxFields): string {
  return sandbox.sandbox === 'none' ? ` ${sandbox.sandboxNote.charAt(0).toUpperCase()}${sandbox.sandboxNote.slice(1)}.` : '';
}

async function execute(input: QaInput, base: QaBase, project: TargetProject, context: LaneContext, decision: SandboxFields): Promise<QaOutcome> {
  const step = base.plan[0]!;
  const folder = projectFolder(context.workspaceRoot, project.dir);
  if ('problem' in folder) {
    return { ...refuseLane(IDENTITY, `${base.target}: ${folder.problem}; nothing was run`, ['Point payload.target at a project folder inside the workspace.']), ...base };
  }
  const outcome = await runProjectCommand(step.command, step.args, {
    projectDir: folder.dir,
    env: suiteEnv(process.env),
    timeoutMs: input.timeoutMs,
    outputCapBytes: OUTPUT_CAP_BYTES,
    sandbox: decision.sandbox,
  });
  // Runners print absolute paths (stack traces, node:test's locations); results name them workspace-relative.
  const outputTail = displayText(tailLines(outcome.output, OUTPUT_TAIL_LINES), { workspaceRoot: context.workspaceRoot });
  const summary = parseTestOutput(outcome.output);
  const reason = notRunReason(outcome, summary !== null, base, input.timeoutMs);
  if (reason !== null) {
    const refusal = refuseLane(IDENTITY, reason, [
      outcome.timedOut
        ? `Find the hanging test in outputTail, or raise payload.timeoutMs (at most 540000).`
        : `Run "npm run ${base.script}" in ${base.target} by hand and fix what stops it from starting (see outputTail).`,
    ]);
    return {
      ...refusal,
      operatorSummary: `${refusal.operatorSummary}${unsandboxedWarning(decision)}`,
      ...base,
      ...decision,
      durationMs: outcome.durationMs,
      exitCode: outcome.exitCode,
      outputTail,
    };
  }

  // The suite ran in the resolved folder, so its runner printed files under the resolved workspace.
  const failures = workspaceRelativeFailures(summary?.failures ?? [], realpathSync(context.workspaceRoot), folder.dir);
  const verdict = outcome.exitCode === 0 && (summary?.failed ?? 0) === 0 ? 'passed' : 'failed';
  const ranNothing = summary === null || summary.passed + summary.failed + summary.skipped === 0;
  const listed = failures.slice(0, MAX_LISTED_FAILURES);

  const counts = summary
    ? `${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped`
    : 'no test summary the lane can read';
  const findings: string[] = [];
  if (listed.length > 0) findings.push(`Failing: ${listed.slice(0, 5).map((f) => f.name).join('; ')}${listed.length > 5 ? ` and ${listed.length - 5} more` : ''}.`);
  if (verdict === 'failed' && (summary?.failed ?? 0) === 0) findings.push(`No test failed, but the script exited ${outcome.exitCode}.`);
  const operatorSummary = `Suite "${input.suite}" of ${base.target} (npm run ${base.script}${summary ? `, ${summary.runner}` : ''}) ${verdict}: ${counts} in ${(outcome.durationMs / 1000).toFixed(1)} s, exit ${outcome.exitCode}.${findings.length > 0 ? ` ${findings.join(' ')}` : ''}${unsandboxedWarning(decision)}`;

  const actions: string[] = [];
  if (listed.length > 0) actions.push(`Fix the ${plural(summary?.failed ?? listed.length, 'failing test')} (names in failures[], output in outputTail), then run the suite again.`);
  else if (verdict === 'failed') actions.push(`Read outputTail: npm run ${base.script} exited ${outcome.exitCode} although no test failed (a lint, coverage or setup step may have failed).`);
  if (summary === null) actions.push('Use a runner whose summary the lane reads (node:test, TAP, Jest, Vitest, Mocha) so results are counted, not only the exit code.');
  else if (ranNothing) actions.push(`The script ran no tests: check that ${base.target} has test files the runner finds.`);
  if (actions.length === 0) actions.push('No action needed: every test of the suite passed.');
  if (decision.sandbox === 'none') actions.push(`Install bubblewrap on the service host (apt-get install bubblewrap): this suite ran unsandboxed, with everything the service's user can read and write within its reach.`);

  return {
    success: true,
    ...base,
    mode: 'execute',
    ...decision,
    verdict,
    runner: summary?.runner ?? null,
    passed: summary?.passed ?? null,
    failed: summary?.failed ?? null,
    skipped: summary?.skipped ?? null,
    failures: listed,
    durationMs: outcome.durationMs,
    exitCode: outcome.exitCode,
    outputTail,
    outputTruncated: outcome.outputTruncated,
    operatorSummary,
    recommendedNextActions: actions,
    // Counts the lane could not read, or a suite without tests, verify less than was asked.
    specialistContract: specialistContract({ ...IDENTITY, status: ranNothing ? 'partial' : 'completed' }),
  };
}

/**
 * The qa-verification lane. Plans suite `suite` of the project at `target` as one npm script
 * (`test:<suite>`, else `test`); in execute mode runs it without a shell, in the sandbox the
 * host and the operator's policy (`__sandbox`) allow, and reads the runner's own summary. A
 * suite that ran is a successful verification whatever its tests did: failing tests are
 * findings (verdict "failed", names in failures[]). A suite that could not run at all, or may
 * not run because no sandbox is available and the operator did not opt in, fails the lane.
 */
export async function qaVerification(payload: QaPayload, context: LaneContext, deps: QaDeps = {}): Promise<QaOutcome> {
  const input = readQaInput(payload);
  const project = await readTargetProject(context.workspaceRoot, input.target);
  if ('problem' in project) {
    return refuseLane(IDENTITY, project.problem, ['Point payload.target at a workspace folder that holds the project’s package.json.']);
  }
  const target = project.relative;
  const plan = buildPlan(target, project.scripts, input.suite);
  if (plan === null) {
    return refuseLane(IDENTITY, `${target}/package.json has neither a "test:${input.suite}" nor a "test" script: there is no suite to run`, [
      `Add a "test" script (or "test:${input.suite}") to ${target}/package.json.`,
    ]);
  }
  const base: QaBase = { target, suite: input.suite, mode: input.mode, script: plan[0]!.script, plan };
  if (input.mode === 'dry-run') return dryRun(input, base);

  const decide = deps.decideSandbox ?? ((policy) => decideSandbox(policy));
  const decision = decide(sandboxPolicyOf(payload[SANDBOX_PAYLOAD_KEY]));
  if ('refused' in decision) {
    return { ...refuseLane(IDENTITY, `${decision.refused}; suite "${input.suite}" of ${target} was not run`, [SANDBOX_REFUSAL_ACTION]), ...base };
  }
  return execute(input, base, project, context, { sandbox: decision.kind, sandboxNote: decision.note });
}
