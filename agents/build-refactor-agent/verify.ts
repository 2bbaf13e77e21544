import type { SandboxKind } from '../../src/worker-sdk/project-command.js';
import { runNpmScript } from './run-script.js';
import { parseTestCounts } from './test-counts.js';
import type { VerificationPlan } from './verification-plan.js';

export type VerificationVerdict = 'passed' | 'failed' | 'timed-out' | 'not-started';

/** The verification evidence of a run. `passed` and `failed` are test counts, when the runner states them. */
export interface Verification {
  runner: 'npm';
  script: string;
  command: string;
  /** Workspace-relative folder the script ran in. */
  project: string;
  verdict: VerificationVerdict;
  passed: number | null;
  failed: number | null;
  exitCode: number | null;
  signal: string | null;
  durationMs: number;
  outputTail: string;
  /** Where the script ran: in bubblewrap, or (by the operator's opt-in only) unsandboxed. */
  sandbox: SandboxKind;
  /** What the sandbox was, in words; an unsandboxed run says UNSANDBOXED here. */
  sandboxNote: string;
}

/** The sandbox the lane decided on for the script (src/worker-sdk/project-command.ts). */
export interface VerificationSandbox {
  kind: SandboxKind;
  note: string;
}

export const DEFAULT_VERIFICATION_TIMEOUT_MS = 5 * 60_000;
const OUTPUT_TAIL_CHARS = 4_000;

/**
 * While the script runs the files are changed; if the worker itself is stopped now (the run
 * times out, the service shuts down), `onInterrupt` still puts them back before the process
 * ends. Returns the function that removes the guard.
 */
function guardInterrupts(onInterrupt: () => void): () => void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    onInterrupt();
  };
  const onSignal = (signal: NodeJS.Signals) => {
    once();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  process.once('exit', once);
  return () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    process.off('exit', once);
  };
}

/**
 * Runs the planned script against the changed files, in `sandbox`, and judges it by exit code
 * and time. The plan's project folder is the resolved one: the sandbox binds it writable at
 * that path, so the script sees the files the lane just changed.
 */
export async function runVerification(plan: VerificationPlan, timeoutMs: number, sandbox: VerificationSandbox, onInterrupt: () => void): Promise<Verification> {
  let killScript: () => void = () => undefined;
  const unguard = guardInterrupts(() => {
    killScript();
    onInterrupt();
  });
  try {
    const run = await runNpmScript({
      projectDir: plan.projectDir,
      script: plan.script,
      timeoutMs,
      sandbox: sandbox.kind,
      onStart: (kill) => {
        killScript = kill;
      },
    });
    const counts = parseTestCounts(run.output);
    let verdict: VerificationVerdict = run.exitCode === 0 ? 'passed' : 'failed';
    if (run.spawnError !== null) verdict = 'not-started';
    else if (run.timedOut) verdict = 'timed-out';
    const tail = run.spawnError !== null ? `could not start npm: ${run.spawnError}` : run.output.slice(-OUTPUT_TAIL_CHARS);
    return {
      runner: 'npm',
      script: plan.script,
      command: plan.command,
      project: plan.project,
      verdict,
      passed: counts.passed,
      failed: counts.failed,
      exitCode: run.exitCode,
      signal: run.signal,
      durationMs: run.durationMs,
      outputTail: tail,
      sandbox: run.sandbox,
      sandboxNote: sandbox.note,
    };
  } finally {
    unguard();
  }
}
