import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { AgentRegistry } from '../agents/registry.js';
import type { AppConfig } from '../config/types.js';
import { PROCESS_GROUPS_FILE_ENV } from '../common/child-groups.js';
import { classifyWorkerExit } from './classify-outcome.js';
import { NO_GROUP_LEDGER, type WorkerGroupLedger } from './group-ledger.js';
import { RESULT_FILE_NAME, writePayloadFile, type PayloadFile } from './payload-file.js';
import { resolveWorkerTimeout } from './resolve-timeout.js';
import { superviseProcess } from './supervise-process.js';
import { CANCEL_ABORT_REASON, type WorkerFailure, type WorkerOutcome, type WorkerRequest, type WorkerSpawner } from '../runtime/worker-port.js';
import { buildWorkerEnv } from './worker-env.js';

export type { WorkerFailure, WorkerOutcome, WorkerRequest, WorkerSpawner } from '../runtime/worker-port.js';

/** A worker printing more than this on stdout is stopped; results are summaries, not dumps. */
export const MAX_WORKER_STDOUT_BYTES = 8 * 1024 * 1024;
/** Time between SIGTERM and SIGKILL when a worker's process group is stopped. */
export const DEFAULT_KILL_GRACE_MS = 2_000;
/** Time between SIGTERM and SIGKILL when an operator cancels the run (config cancelGraceMs). */
export const DEFAULT_CANCEL_GRACE_MS = 10_000;

export { RESULT_FILE_NAME } from '../common/worker-protocol.js';
/** Name of the file in the payload directory where the worker records the process groups it starts (child-groups.ts). */
export const CHILD_GROUPS_FILE_NAME = 'process-groups';

export { removeWorkerDirectory } from '../common/worker-protocol.js';

export interface WorkerSpawnerDeps {
  config: AppConfig;
  registry: AgentRegistry;
  logger: Logger;
  /** Environment the allowlist is read from; the orchestrator's own by default. */
  parentEnv?: NodeJS.ProcessEnv;
  killGraceMs?: number;
  /** SIGTERM to SIGKILL when an operator cancels the run (abort reason CANCEL_ABORT_REASON). */
  cancelGraceMs?: number;
  /** Where the process groups of running workers are recorded, for the next start after a crash. */
  groupLedger?: WorkerGroupLedger;
}


/**
 * The worker protocol: write the payload file, run `node <entrypoint> --payload <file>` in the
 * workspace root with a minimal environment, read one JSON object from stdout, and remove the
 * payload file whatever happened. The payload's directory goes with it however the attempt
 * ended (success, failure, timeout, cancel, shutdown, lost lease), except when the caller asked
 * to keep it and the worker wrote its durable result there (the caller removes it once the
 * outcome is recorded). Every failure is logged as `agent spawn error`.
 */
export function createWorkerSpawner(deps: WorkerSpawnerDeps): WorkerSpawner {
  const killGraceMs = deps.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const cancelGraceMs = deps.cancelGraceMs ?? DEFAULT_CANCEL_GRACE_MS;
  const ledger = deps.groupLedger ?? NO_GROUP_LEDGER;

  function report(request: WorkerRequest, outcome: WorkerOutcome): WorkerOutcome {
    const fields = {
      agentId: request.agentId,
      runId: request.runId,
      taskType: request.taskType,
      pid: outcome.pid,
      exitCode: outcome.exitCode,
      signal: outcome.signal,
      durationMs: outcome.durationMs,
    };
    if (outcome.ok) deps.logger.info(fields, 'agent worker succeeded');
    else deps.logger.error({ ...fields, failure: outcome.failure, cause: outcome.error }, 'agent spawn error');
    return outcome;
  }

  async function run(request: WorkerRequest): Promise<WorkerOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const failBeforeStart = (failure: WorkerFailure, error: string) =>
      report(request, { ok: false, result: null, error, failure, exitCode: null, signal: null, durationMs: elapsed(), pid: null });

    const agent = deps.registry.get(request.agentId);
    if (!agent) return failBeforeStart('spawn-error', `unknown agent ${request.agentId}`);
    if (!agent.lanes.includes(request.taskType)) {
      return failBeforeStart('spawn-error', `agent ${agent.id} does not serve lane ${request.taskType}`);
    }
    const missingEntrypoint = `lane not yet available: agent ${agent.id} has no worker entrypoint`;
    if (agent.entrypoint === null) return failBeforeStart('no-entrypoint', missingEntrypoint);
    if (agent.entrypointPath === null) return failBeforeStart('no-entrypoint', `${missingEntrypoint} (${agent.entrypointMissingReason})`);
    // The registry resolved the path at start-up; a rebuild or clean since then may have removed it.
    if (!existsSync(agent.entrypointPath)) {
      return failBeforeStart('no-entrypoint', `${missingEntrypoint} (build output missing: run npm run build; expected ${agent.entrypointPath})`);
    }
    if (request.signal?.aborted) return failBeforeStart('aborted', 'worker aborted before it started');

    let payloadFile: PayloadFile;
    try {
      await mkdir(deps.config.workspaceRoot, { recursive: true });
      payloadFile = await writePayloadFile(request.runId, request.payload);
    } catch (err) {
      return failBeforeStart('spawn-error', `could not prepare the worker run: ${(err as Error).message}`);
    }

    // What of the directory outlives the attempt: nothing, unless the caller keeps the worker's
    // durable result (restart recovery may finish the attempt from it), or processes of the
    // attempt survived (the ledger keeps them, and the groups file in it, for the next start).
    let kept: 'nothing' | 'result' | 'survivors' = 'nothing';
    try {
      await request.onPrepared?.(payloadFile.directory);
      const timeoutMs = resolveWorkerTimeout(request.timeoutMs, request.taskType, deps.config, agent.timeoutMs);
      const childGroupsFile = join(payloadFile.directory, CHILD_GROUPS_FILE_NAME);
      const exit = await superviseProcess({
        command: process.execPath,
        args: [agent.entrypointPath, '--payload', payloadFile.path],
        cwd: deps.config.workspaceRoot,
        env: {
          ...buildWorkerEnv(deps.parentEnv ?? process.env, deps.config, request.runId, request.taskType),
          ORCHESTRATOR_RESULT_FILE: join(payloadFile.directory, RESULT_FILE_NAME),
          [PROCESS_GROUPS_FILE_ENV]: childGroupsFile,
          // A worker that traces continues the attempt's trace (the environment-carrier convention).
          ...(request.traceparent ? { TRACEPARENT: request.traceparent } : {}),
        },
        timeoutMs,
        killGraceMs,
        abortGraceMs: (reason) => (reason === CANCEL_ABORT_REASON ? cancelGraceMs : killGraceMs),
        maxStdoutBytes: MAX_WORKER_STDOUT_BYTES,
        signal: request.signal,
        onStderr: request.onStderr,
        childGroupsFile,
        onGroupStarted: (group) => ledger.started({ group, runId: request.runId, childGroupsFile, directory: payloadFile.directory }),
        onGroupEnded: (group) => ledger.ended(group.pgid),
      });
      if (exit.spawnError !== null) return failBeforeStart('spawn-error', `could not start the worker: ${exit.spawnError}`);
      if (exit.survivors) {
        deps.logger.error({ runId: request.runId, pgid: exit.pid }, 'processes of a worker attempt survived SIGKILL; the next start of the service ends them');
      }
      const classified = classifyWorkerExit(exit);
      const resultWritten = existsSync(join(payloadFile.directory, RESULT_FILE_NAME));
      if (request.retainDirectory === true && resultWritten) kept = 'result';
      else if (exit.survivors) kept = 'survivors';
      const retained = kept === 'result';
      return report(request, {
        ...classified,
        exitCode: exit.exitCode,
        signal: exit.signal,
        stopSignal: exit.stopSignal,
        durationMs: elapsed(),
        pid: exit.pid,
        directory: retained ? payloadFile.directory : null,
      });
    } catch (err) {
      return failBeforeStart('spawn-error', `could not run the worker: ${(err as Error).message}`);
    } finally {
      // No payload outlives its attempt: the worker that read it is gone.
      if (kept === 'nothing') await payloadFile.remove();
      else await payloadFile.removePayload();
    }
  }

  return { run };
}
