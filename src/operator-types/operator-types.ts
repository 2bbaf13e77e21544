import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentRegistry, RegisteredAgent } from '../agents/registry.js';
import { packageRoot } from '../config/package-root.js';
import type { AppConfig } from '../config/types.js';
import type { Admit } from '../runtime/admission.js';
import { SANDBOX_PAYLOAD_KEY } from '../worker-sdk/project-command.js';
import type { WorkerSpawner } from '../workers/spawn-worker.js';
import { resolveWorkerTimeout } from '../workers/resolve-timeout.js';
import { installTaskTypes } from '../task-types/installed.js';
import { createTaskTypeRegistry } from '../task-types/registry.js';
import type { TaskType } from '../task-types/task-type.js';
import type { Logger } from 'pino';
import { configError } from '../config/errors.js';
import type { RunRecord } from '../domain/run-record.js';
import type { StateStore } from '../store/types.js';
import { loadOperatorTypes, readOperatorFolder, type OperatorType } from './load.js';
import { ensureSnapshot, pruneSnapshots, snapshotPath, snapshotsRoot, type SnapshotConfig } from './program-store.js';
import { PROGRAM_PAYLOAD_KEY, readProgramSnapshot, type ProgramSnapshot } from './snapshot.js';
import { OPERATOR_AGENT_ID } from './to-task-type.js';

/**
 * A type a reload removed: no longer listed or triggerable (the trigger answers that it is
 * internal-only), still known to the runner for the runs admitted before the reload.
 */
function retiredType(t: TaskType): TaskType {
  return Object.freeze({
    ...t,
    internalOnly: true,
    publicTriggerable: false,
    caveats: [...t.caveats, 'Removed from the task types folder by a reload; known only so that runs admitted before it can finish.'],
  });
}

/** What a reload found, by type name (`refused`: the folder and why). */
export interface ReloadAnswer {
  added: string[];
  changed: string[];
  removed: string[];
  unchanged: string[];
  refused: Array<{ folder: string; message: string }>;
}

export type OperatorTypesConfig = Pick<AppConfig, 'taskTypesDir' | 'laneTimeoutsMs' | 'workerTimeoutMs' | 'sandbox' | 'typeConcurrency'> & SnapshotConfig;

/** The statuses of runs that may still execute: their snapshots are kept. */
const UNFINISHED: ReadonlyArray<RunRecord['status']> = ['pending', 'running', 'retrying'];
const PRUNE_PAGE = 500;

/** The program digests the runs not finished refer to, whichever instance admitted them. */
async function digestsOfUnfinishedRuns(store: Pick<StateStore, 'listRuns'>): Promise<Set<string>> {
  const digests = new Set<string>();
  for (const status of UNFINISHED) {
    let afterSeq: number | undefined;
    for (;;) {
      const page = await store.listRuns({ status, includeInternal: true, order: 'oldest', limit: PRUNE_PAGE, ...(afterSeq === undefined ? {} : { afterSeq }) });
      for (const run of page.items) {
        const digest = readProgramSnapshot(run.payload)?.digest;
        if (digest) digests.add(digest);
      }
      if (page.items.length < PRUNE_PAGE) break;
      afterSeq = page.items.at(-1)!.seq;
    }
  }
  return digests;
}

/** The compiled program worker every operator type runs through. */
export function programWorkerPath(): string {
  return join(packageRoot(), 'dist', 'src', 'operator-types', 'program-worker.js');
}

function snapshotOf(op: OperatorType): ProgramSnapshot {
  return {
    type: op.manifest.type,
    folder: op.folder,
    version: op.version,
    command: [...op.manifest.command],
    network: op.manifest.network ?? false,
    timeoutMs: op.manifest.timeoutMs ?? null,
    scopeFields: [...(op.manifest.scopeFields ?? [])],
    digest: op.digest,
  };
}

/**
 * The operator task types of one service instance (docs/task-types.md "Write your own task
 * type"): read from `taskTypesDir` at start (a refused manifest stops the start), installed into
 * the process's task type registry beside the fixed ones, and read again on `reload`. What the
 * instance knows is its own: a reload is per instance. Runs keep the manifest they were admitted
 * with (a snapshot in their payload), so nothing an admitted run does depends on this memory.
 */
export function createOperatorTypes(config: OperatorTypesConfig, fixedTypes: readonly TaskType[]) {
  const reserved = new Set(fixedTypes.map((t) => t.type));
  const snapshots = snapshotsRoot(config);
  /** Each type's program copied to its snapshot as it is now; a folder that cannot be copied is why. */
  const snapshotProblem = (op: OperatorType): string | null => {
    const ensured = ensureSnapshot(snapshots, op.directory, op.digest);
    return 'problem' in ensured ? `invalid task type folder ${op.directory}: ${ensured.problem}` : null;
  };
  const loaded = loadOperatorTypes(config.taskTypesDir, reserved);
  const startProblems = loaded.flatMap((op) => snapshotProblem(op) ?? []);
  if (startProblems.length > 0) throw configError(startProblems.join('\n'));
  let current = new Map(loaded.map((op) => [op.manifest.type, op]));
  // The digests current before the last reload: a run admitted just before it may not be stored yet when a prune lists runs.
  let previousDigests = new Set<string>();
  // Types a reload removed, kept hidden so that runs already admitted still find their type here.
  const retired = new Map<string, TaskType>();

  const install = () =>
    installTaskTypes(
      createTaskTypeRegistry([
        ...fixedTypes,
        ...[...current.values()].map((op) => op.taskType),
        ...[...retired.values()].filter((t) => !current.has(t.type)),
      ]),
    );

  /** The program worker as the spawner sees an agent: it serves every operator type known now. */
  const workerPath = programWorkerPath();
  const programAgent: RegisteredAgent = {
    id: OPERATOR_AGENT_ID,
    name: 'Operator programs',
    description: 'Runs the programs of operator task types (taskTypesDir) in the project-code sandbox.',
    get lanes() {
      return [...current.keys(), ...retired.keys()];
    },
    lifecycleMode: 'worker-first',
    serviceExpected: false,
    serviceUnitName: null,
    entrypoint: 'program-worker.js',
    orchestratorStatePath: null,
    serviceStatePath: null,
    allowedSkills: [],
    model: { tier: 'local', provider: null, name: null },
    directory: config.taskTypesDir,
    manifestPath: config.taskTypesDir,
    soulPath: null,
    entrypointPath: existsSync(workerPath) ? workerPath : null,
    entrypointMissingReason: existsSync(workerPath) ? null : `build output missing: run npm run build (expected ${workerPath})`,
  };

  /**
   * The per-type run limits the service runs under: the operator's `typeConcurrency`, and the
   * limit each operator manifest declares for its type where the operator set none. One object,
   * refilled in place by every reload: the runner reads it at each claim, so a limit a reload
   * adds, changes or removes applies to the next claim; waiting runs stay queued in the store.
   */
  const typeConcurrency: Record<string, number> = {};
  const refreshLimits = () => {
    for (const type of Object.keys(typeConcurrency)) delete typeConcurrency[type];
    for (const op of current.values()) if (op.manifest.concurrency) typeConcurrency[op.manifest.type] = op.manifest.concurrency;
    Object.assign(typeConcurrency, config.typeConcurrency);
  };
  refreshLimits();

  return {
    install,
    types: (): OperatorType[] => [...current.values()],
    /** The live per-type limits (see above): hand this object, not a copy, to the runtime. */
    typeConcurrency,

    /**
     * Reads the folder again and installs what it holds. A refused folder keeps the type it had
     * (a typo in an edit does not take a working type away) and is reported; runs already
     * admitted are untouched (they run the snapshot they carry).
     */
    reload(): ReloadAnswer {
      const reading = readOperatorFolder(config.taskTypesDir, reserved);
      // A folder whose program cannot be snapshotted is refused as a broken manifest is.
      const types = reading.types.filter((op) => {
        const problem = snapshotProblem(op);
        if (problem) reading.refused.push({ folder: op.folder, message: problem });
        return problem === null;
      });
      const refusedFolders = new Set(reading.refused.map((r) => r.folder));
      const next = new Map(types.map((op) => [op.manifest.type, op]));
      for (const op of current.values()) {
        if (refusedFolders.has(op.folder) && !next.has(op.manifest.type)) next.set(op.manifest.type, op);
      }
      const answer: ReloadAnswer = { added: [], changed: [], removed: [], unchanged: [], refused: reading.refused };
      for (const [type, op] of next) {
        const before = current.get(type);
        if (!before) answer.added.push(type);
        else if (before.version !== op.version || before.digest !== op.digest || before.folder !== op.folder) answer.changed.push(type);
        else answer.unchanged.push(type);
      }
      for (const [type, op] of current) {
        if (next.has(type)) continue;
        answer.removed.push(type);
        retired.set(type, retiredType(op.taskType));
      }
      previousDigests = new Set([...current.values()].map((op) => op.digest));
      current = next;
      install();
      refreshLimits();
      return answer;
    },

    /**
     * Why this instance cannot run a claimed run of an operator type (the runner hands it back):
     * it lacks the snapshot of the program the run was admitted with, and its own folder does not
     * hold that program to rebuild it from (another instance admitted it from a folder this disk
     * does not have, or the folder changed since). Null when the snapshot is here or rebuilt.
     */
    cannotRunHere(run: RunRecord): string | null {
      const snapshot = readProgramSnapshot(run.payload);
      if (!snapshot?.digest) return null;
      const ensured = ensureSnapshot(snapshots, join(config.taskTypesDir, snapshot.folder), snapshot.digest);
      return 'problem' in ensured ? `no snapshot ${snapshot.digest.slice(0, 12)} of the program of ${run.type} here, and ${ensured.problem}` : null;
    },

    /**
     * Removes the snapshots nothing needs any more: neither a type of this instance now (or
     * before its last reload) nor a run not finished in the store, whichever instance admitted
     * it. Run at start and after each reload; a failure is logged, the snapshots stay.
     */
    async pruneSnapshots(store: Pick<StateStore, 'listRuns'>, logger: Logger): Promise<string[]> {
      try {
        const keep = new Set([...previousDigests, ...[...current.values()].map((op) => op.digest)]);
        for (const digest of await digestsOfUnfinishedRuns(store)) keep.add(digest);
        const removed = pruneSnapshots(snapshots, keep);
        if (removed.length > 0) logger.info({ removed: removed.length }, 'old task type program snapshots removed');
        return removed;
      } catch (err) {
        logger.warn({ err }, 'task type program snapshots not pruned');
        return [];
      }
    },

    /**
     * The agent registry the spawner and the model gateway use: the service's agents plus the
     * program worker, which serves each operator type with its manifest's timeout and model tier
     * (`none` and `local` both keep its calls off every provider).
     */
    agents(registry: AgentRegistry): AgentRegistry {
      const serving = (op: OperatorType): RegisteredAgent => ({
        ...programAgent,
        ...(op.manifest.timeoutMs !== undefined ? { timeoutMs: op.manifest.timeoutMs } : {}),
        model: { tier: op.manifest.model?.tier === 'standard' ? 'standard' : 'local', provider: null, name: null },
      });
      return {
        ...registry,
        get: (id) => (id === OPERATOR_AGENT_ID ? programAgent : registry.get(id)),
        forLane: (lane) => {
          const op = current.get(lane);
          return op ? serving(op) : registry.forLane(lane);
        },
      };
    },

    /** Every admission of an operator type records the manifest it is admitted with. */
    stampAdmissions(admit: Admit): Admit {
      return (request) => {
        const op = current.get(request.type);
        if (!op || request.payload[PROGRAM_PAYLOAD_KEY] !== undefined) return admit(request);
        return admit({ ...request, payload: { ...request.payload, [PROGRAM_PAYLOAD_KEY]: snapshotOf(op) } });
      };
    },

    /**
     * The spawner for runs of operator types: the run's snapshot with its folder resolved here,
     * the sandbox policy, and its timeout (the operator's per-lane setting, else the manifest's,
     * else the service default) as the worker's own, so an overrun ends as any worker's does.
     */
    spawner(inner: WorkerSpawner): WorkerSpawner {
      return {
        run(request) {
          if (request.agentId !== OPERATOR_AGENT_ID) return inner.run(request);
          const snapshot = readProgramSnapshot(request.payload);
          const timeoutMs = resolveWorkerTimeout(request.timeoutMs, request.taskType, config, snapshot?.timeoutMs ?? undefined);
          // The program as it was admitted: its snapshot (cannotRunHere made sure it is here); a run
          // admitted before snapshots existed runs from the folder.
          const directory = snapshot?.digest ? snapshotPath(snapshots, snapshot.digest) : join(config.taskTypesDir, snapshot?.folder ?? '');
          const spec = snapshot ? { ...snapshot, timeoutMs, directory } : null;
          return inner.run({
            ...request,
            timeoutMs,
            payload: { ...request.payload, [PROGRAM_PAYLOAD_KEY]: spec, [SANDBOX_PAYLOAD_KEY]: { allowUnsandboxed: config.sandbox.allowUnsandboxed } },
          });
        },
      };
    },
  };
}

export type OperatorTypes = ReturnType<typeof createOperatorTypes>;

/** The configuration with the live run limits of `operatorTypes` (the operator's own typeConcurrency and the manifests'). */
export function withOperatorConcurrency<C extends Pick<AppConfig, 'typeConcurrency'>>(config: C, operatorTypes: Pick<OperatorTypes, 'typeConcurrency'>): C {
  return { ...config, typeConcurrency: operatorTypes.typeConcurrency };
}
