import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectScopeValues } from '../workspace/boundary.js';
import { defaultForwarders, type OutputForwarder } from '../worker-sdk/forward-output.js';
import type { LaneContext } from '../worker-sdk/lane-result.js';
import {
  decideSandbox,
  runProjectCommand,
  SANDBOX_PAYLOAD_KEY,
  SANDBOX_REFUSAL_ACTION,
  sandboxPolicyOf,
  type SandboxDecider,
} from '../worker-sdk/project-command.js';
import { resolveScope } from '../worker-sdk/scope-path.js';
import { commandProblem } from './command-check.js';
import { captureLastLine, MAX_PROGRAM_STDOUT_BYTES, teeTail } from './program-output.js';
import { answerOf, readProgramResult } from './program-result.js';
import { readProgramSpec, type ProgramSpec } from './snapshot.js';

/** The program's own view of the payload leaves out what is the service's. */
const SERVICE_FIELDS = new Set(['idempotencyKey', 'requiresApproval']);
/** Where the service puts the attempt's model channel in the worker's payload (src/models/channel.ts). */
const MODEL_PAYLOAD_KEY = '__model';
/** The inner backstop past the worker's own timeout: the service's timeout (worker-timeout) comes first. */
const BACKSTOP_MS = 5000;
/** The parent variables a program sees: nothing of the service (no keys, no store, no config path). */
const PROGRAM_ENV_ALLOWLIST = ['PATH', 'LANG', 'LC_ALL', 'TZ'] as const;

/** A program that failed in a way retrying may clear (it crashed, printed nothing usable, overran). */
export class ProgramFailure extends Error {}

export interface ProgramRunDeps {
  /** The worker's environment (PATH and locale are passed on). */
  env: NodeJS.ProcessEnv;
  /** How the sandbox is decided; a test pins what the host offers. */
  decide?: SandboxDecider;
  /** Where the program's stderr lines go as it prints: the run's log in a worker process. */
  stderr?: OutputForwarder | null;
  /** A line of the service's own about the run, for its log (which sandbox it ran in). */
  note?: (line: string) => void;
}

/** What the program gets as its payload: the run's, without the service's fields. */
export function programPayload(payload: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(payload).filter(([key]) => !key.startsWith('__') && !SERVICE_FIELDS.has(key)));
}

/** The workspace scopes the payload names that exist, resolved: shown read-only to the program. */
function scopePaths(spec: ProgramSpec, payload: Record<string, unknown>, workspaceRoot: string): string[] {
  const paths = new Set<string>();
  for (const selector of spec.scopeFields) {
    for (const { value } of collectScopeValues(selector, payload)) {
      const scope = resolveScope(workspaceRoot, value);
      if (!('problem' in scope)) paths.add(scope.absolute);
    }
  }
  return [...paths];
}

/**
 * The attempt's model channel (src/models/channel.ts) as the program sees it: the gateway's
 * endpoint and a token that dies with the attempt, never a provider key. Absent when the service
 * gave the attempt none.
 */
function modelEnv(payload: Readonly<Record<string, unknown>>): Record<string, string> {
  const channel = payload[MODEL_PAYLOAD_KEY];
  if (typeof channel !== 'object' || channel === null) return {};
  const { endpoint, token } = channel as { endpoint?: unknown; token?: unknown };
  return typeof endpoint === 'string' && typeof token === 'string' ? { ORCH_MODEL_URL: endpoint, ORCH_MODEL_TOKEN: token } : {};
}

function programEnv(parent: NodeJS.ProcessEnv, files: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PROGRAM_ENV_ALLOWLIST) {
    const value = parent[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...files };
}

function exitDescription(exitCode: number | null, signal: string | null): string {
  return exitCode === null ? `was killed by ${signal ?? 'a signal'}` : `exited with code ${exitCode}`;
}

function lastLineOf(text: string): string {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  return lines.at(-1) ?? '';
}

/**
 * Runs one attempt of an operator type's program (docs/task-types.md "Write your own task
 * type"): its payload as a JSON file (the last argument and ORCH_PAYLOAD_FILE), its folder as
 * working directory (read-only in the sandbox), a per-attempt scratch folder writable, the
 * workspace scopes its payload names read-only, no network unless its manifest asks. Its stderr
 * goes to the run's log line by line. Answers the worker's result: the program's result with
 * `success`, or `success: false` with its reason; throws a ProgramFailure when the program
 * crashed or left no usable result, which the worker reports as a crash.
 */
export async function runOperatorProgram(payload: Record<string, unknown>, context: LaneContext, deps: ProgramRunDeps): Promise<Record<string, unknown>> {
  const spec = readProgramSpec(payload);
  if (!spec) throw new ProgramFailure('the run carries no task type snapshot (__taskType): it was not admitted as an operator type');
  const note = deps.note ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const sandbox = (deps.decide ?? decideSandbox)(sandboxPolicyOf(payload[SANDBOX_PAYLOAD_KEY]));
  if ('refused' in sandbox) {
    return { success: false, error: `${sandbox.refused}. ${SANDBOX_REFUSAL_ACTION}` };
  }
  const [command, ...args] = spec.command as [string, ...string[]];
  const problem = commandProblem(command, spec.directory, deps.env.PATH);
  if (problem) throw new ProgramFailure(problem);

  const attempt = await mkdtemp(join(tmpdir(), 'orch-program-'));
  try {
    const scratch = join(attempt, 'scratch');
    await mkdir(scratch);
    const payloadFile = join(attempt, 'payload.json');
    const resultFile = join(attempt, 'result.json');
    await writeFile(payloadFile, JSON.stringify(programPayload(payload)), { mode: 0o600, flag: 'wx' });
    const env = programEnv(deps.env, {
      HOME: scratch,
      TMPDIR: scratch,
      ORCH_PAYLOAD_FILE: payloadFile,
      ORCH_RESULT_FILE: resultFile,
      ORCH_SCRATCH_DIR: scratch,
      ORCH_WORKSPACE_ROOT: context.workspaceRoot,
      ORCH_TASK_TYPE: spec.type,
      ORCH_TASK_TYPE_VERSION: spec.version,
      ...(context.runId ? { ORCH_RUN_ID: context.runId } : {}),
      ...modelEnv(payload),
    });
    note(`[${spec.type} ${spec.version}] ${sandbox.note.replace('only the project writable', 'only its scratch folder writable')}`);
    let stop: (() => void) | null = null;
    const stdout = captureLastLine(() => stop?.());
    const stderr = teeTail(deps.stderr === undefined ? (defaultForwarders()?.stderr ?? null) : deps.stderr);
    const timeoutMs = (spec.timeoutMs ?? 120_000) + BACKSTOP_MS;
    const outcome = await runProjectCommand(command, [...args, payloadFile], {
      projectDir: spec.directory,
      projectReadOnly: true,
      writableDirs: [attempt],
      readOnlyPaths: scopePaths(spec, payload, context.workspaceRoot),
      network: spec.network,
      env,
      timeoutMs,
      outputCapBytes: 4096,
      sandbox: sandbox.kind,
      liveOutput: { stdout, stderr },
      onStart: (s) => (stop = s),
    });
    if (stdout.overflowed) {
      throw new ProgramFailure(`the program wrote more than ${MAX_PROGRAM_STDOUT_BYTES} bytes to stdout and was stopped: stdout carries only its JSON result (write logs to stderr)`);
    }
    if (outcome.spawnError !== null) throw new ProgramFailure(`the program could not be started: ${outcome.spawnError}`);
    if (outcome.timedOut) throw new ProgramFailure(`the program did not finish within ${timeoutMs} ms and was stopped`);
    const read = readProgramResult(resultFile, stdout.lastLine(), stdout.lineTooLong);
    if (outcome.exitCode !== 0) {
      const said = 'result' in read && typeof read.result.error === 'string' ? read.result.error : lastLineOf(stderr.tail());
      throw new ProgramFailure(`the program ${exitDescription(outcome.exitCode, outcome.signal)}${said ? `: ${said}` : ''}`);
    }
    if ('problem' in read) throw new ProgramFailure(read.problem);
    return answerOf(read.result);
  } finally {
    await rm(attempt, { recursive: true, force: true });
  }
}
