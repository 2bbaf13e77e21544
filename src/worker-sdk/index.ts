import { forwardProjectOutputToService } from './forward-output.js';
import { DomainError, ProgrammingError } from '../domain/errors.js';
import { Console } from 'node:console';
import { readFile } from 'node:fs/promises';
import type { LaneContext } from './lane-result.js';
import type { WorkerLane, LaneRouter } from './lane-definition.js';
import { writeDurableResult } from './durable-result.js';
import { exitWhenOrphaned } from './parent-watch.js';
import { modelAccessOf } from './model.js';
export { countWords, figuresNotIn, looksLikeSecret, providerTextProblem } from './provider-text.js';

export {
  deterministicBecause,
  modelAccessOf,
  NO_MODEL,
  type ChatMessage,
  type CompletionAnswer,
  type Generation,
  type LaneCompletionRequest,
  type ModelAccess,
} from './model.js';

export {
  defineLane,
  refusePayload,
  type Lane,
  type WorkerLane,
  type LanePayload,
  type LaneRouter,
  type PayloadRefusal,
  type ServiceFields,
} from './lane-definition.js';
export type { PayloadTaskType, TaskPayload } from '../lanes/payload-schemas.js';

export {
  refuseLane,
  specialistContract,
  type LaneContext,
  type LaneRefusal,
  type LaneResult,
  type LaneResultBase,
  type SpecialistContract,
  type SpecialistContractInput,
  type SpecialistIdentity,
  type SpecialistStatus,
} from './lane-result.js';

/** The process edges runAgentMain touches; tests substitute them. */
export interface AgentMainIo {
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd: () => string;
  readFile: (path: string) => Promise<string>;
  writeStdout: (text: string) => Promise<void>;
  exit: (code: number) => void;
  /** Send console output to stderr so stray logging cannot corrupt the one JSON result. */
  reserveStdout: boolean;
  /** Exit when the orchestrator that spawned this worker dies (see parent-watch.ts). */
  watchParent: boolean;
  /** Durable copy of the answer for restart recovery (see durable-result.ts). */
  writeResultFile: (path: string, text: string) => Promise<void>;
}

const STDOUT_CONSOLE_METHODS = ['log', 'info', 'debug', 'dir', 'dirxml', 'table', 'group', 'groupCollapsed', 'groupEnd', 'count', 'countReset', 'time', 'timeEnd', 'timeLog', 'trace'] as const;

function reserveStdoutForResult(): void {
  const toStderr = new Console({ stdout: process.stderr, stderr: process.stderr });
  const target = console as unknown as Record<string, unknown>;
  const source = toStderr as unknown as Record<string, (...args: unknown[]) => void>;
  for (const method of STDOUT_CONSOLE_METHODS) target[method] = source[method]!.bind(toStderr);
}

const processIo: AgentMainIo = {
  argv: process.argv.slice(2),
  env: process.env,
  cwd: () => process.cwd(),
  readFile: (path) => readFile(path, 'utf8'),
  writeStdout: (text) =>
    new Promise((resolve, reject) => process.stdout.write(text, (err) => (err ? reject(err) : resolve()))),
  exit: (code) => process.exit(code),
  reserveStdout: true,
  watchParent: true,
  writeResultFile: writeDurableResult,
};

/** Reads `--payload <file>` (or `--payload=<file>`) from the arguments. */
export function payloadPathFromArgv(argv: string[]): string {
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '--payload' && argv[i + 1]) return argv[i + 1]!;
    if (arg.startsWith('--payload=') && arg.length > '--payload='.length) return arg.slice('--payload='.length);
  }
  throw new DomainError('invalid_request', 'missing --payload <file> argument');
}

async function readPayload(io: AgentMainIo): Promise<Record<string, unknown>> {
  const path = payloadPathFromArgv(io.argv);
  const value: unknown = JSON.parse(await io.readFile(path));
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DomainError('invalid_request', `payload file ${path} does not hold a JSON object`);
  }
  return value as Record<string, unknown>;
}

async function answer(lanes: WorkerLane | LaneRouter, io: AgentMainIo): Promise<{ text: string; code: number }> {
  try {
    const payload = await readPayload(io);
    const context: LaneContext = {
      workspaceRoot: io.env.ORCHESTRATOR_WORKSPACE_ROOT || io.cwd(),
      runId: io.env.ORCHESTRATOR_RUN_ID || null,
      model: modelAccessOf(payload),
    };
    const lane = typeof lanes === 'function' ? lanes(payload, io.env) : lanes;
    // A payload its schema refuses comes back as the lane's answer (success: false, exit 0).
    const result: unknown = await lane.run(payload, context);
    if (typeof result !== 'object' || result === null || Array.isArray(result)) {
      throw new ProgrammingError(`lane returned ${result === null ? 'null' : typeof result}, expected an object`);
    }
    // Serialize here so a result that cannot be JSON (cycles, BigInt) becomes a reported failure.
    return { text: JSON.stringify(result), code: 0 };
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    return { text: JSON.stringify({ success: false, error }), code: 1 };
  }
}

/**
 * The whole body of an agent entrypoint: read the payload file, check it against the lane's
 * task schema, run the lane, print exactly one JSON object and exit. `lanes` is the lane bound
 * to its task type (defineLane), or for an agent serving several types a router that picks one.
 * A payload the schema refuses is answered with a refusal built from the schema's problems, and
 * a lane that declines its input answers `success: false`; both exit 0 (the worker did its job).
 * An exception exits 1 with `{success: false, error}`. The explicit exit matters: a lane that
 * leaves a timer or socket open must not hang the run. Resolves with the exit code (useful when
 * `io.exit` does not end the process).
 */
export async function runAgentMain(lanes: WorkerLane | LaneRouter, io: Partial<AgentMainIo> = {}): Promise<number> {
  const resolved: AgentMainIo = { ...processIo, ...io };
  if (resolved.reserveStdout) {
    reserveStdoutForResult();
    // The worker process: what its project commands print goes to the run's log as it prints.
    forwardProjectOutputToService();
  }
  const stopWatching = resolved.watchParent ? exitWhenOrphaned() : () => undefined;
  const { text, code } = await answer(lanes, resolved);
  const resultFile = resolved.env.ORCHESTRATOR_RESULT_FILE;
  if (resultFile) await resolved.writeResultFile(resultFile, text);
  stopWatching();
  await resolved.writeStdout(`${text}\n`);
  resolved.exit(code);
  return code;
}
