import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseWorkerStdout, RESULT_FILE_NAME, removeWorkerDirectory } from '../common/worker-protocol.js';
import type { ExecutionOutcome } from './executor.js';
import type { RunRecord } from '../domain/run-record.js';

/**
 * The outcome a worker made durable before its orchestrator died (its `result.json`), or null
 * when there is none: then the attempt did not finish and must run again.
 */
export async function readRecoveredWorkerResult(run: RunRecord): Promise<ExecutionOutcome | null> {
  if (!run.workerDirectory) return null;
  let text: string;
  try {
    text = await readFile(join(run.workerDirectory, RESULT_FILE_NAME), 'utf8');
  } catch {
    return null;
  }
  const parsed = parseWorkerStdout(text);
  if (!('object' in parsed) || !parsed.object) return null;
  const result = parsed.object;
  const ok = result.success === true;
  const directory = run.workerDirectory;
  const error = typeof result.error === 'string' ? result.error : 'worker reported no logical success';
  return {
    ok,
    result,
    error: ok ? null : error,
    failureReason: ok ? null : 'worker-logical-failure',
    transient: false,
    durationMs: run.startedAt ? Date.now() - new Date(run.startedAt).getTime() : 0,
    release: () => removeWorkerDirectory(directory),
    operatorSummary: typeof result.operatorSummary === 'string' ? result.operatorSummary : null,
    recommendedNextActions: Array.isArray(result.recommendedNextActions)
      ? result.recommendedNextActions.filter((a): a is string => typeof a === 'string')
      : null,
    specialistContract: (result.specialistContract as ExecutionOutcome['specialistContract']) ?? null,
  };
}
