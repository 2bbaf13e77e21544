import { join } from 'node:path';
import { ProgrammingError } from '../../domain/errors.js';
import { readScopedFile } from '../../worker-sdk/scoped-file.js';
import { configuredPathProblem, type ConfiguredPathRoots } from '../../workspace/configured-folder.js';
import { appendFileNoFollow, writeJsonAtomic } from '../../workspace/file-writes.js';
import { isChainName } from './chain-owner.js';

const EVIDENCE_FOLDER = 'autonomous-work';

/**
 * Where a work chain (a work cycle and the approval replays that continue it) keeps its
 * checkpoint and its invocation evidence: `<logsDir>/autonomous-work/<chain id>/`. The chain id
 * is a name (chain-owner.ts), never `.`, `..` or a path.
 */
export function chainDirectory(logsDir: string, chainId: string): string {
  if (!isChainName(chainId)) throw new ProgrammingError(`work chain id ${JSON.stringify(chainId)} is not a name`);
  return join(logsDir, EVIDENCE_FOLDER, chainId);
}

/**
 * Why the chain's evidence must not be written now, or null: the logs folder, its evidence
 * folder and the chain's folder are configured folders, checked at every use
 * (src/workspace/configured-folder.ts), so a folder swapped for a link cannot carry the
 * evidence outside.
 */
export function evidenceFolderProblem(logsDir: string, chainId: string, roots: ConfiguredPathRoots): string | null {
  return (
    configuredPathProblem(logsDir, 'logs folder', roots) ??
    configuredPathProblem(join(logsDir, EVIDENCE_FOLDER), 'work-cycle evidence folder', roots) ??
    configuredPathProblem(chainDirectory(logsDir, chainId), 'work chain folder', roots)
  );
}

export interface StepRecord {
  index: number;
  kind: 'inspect' | 'boundary';
  name: string;
  status: 'done' | 'approved' | 'awaiting-approval' | 'failed';
  runId: string;
  at: string;
  summary: string;
  evidence?: Record<string, unknown>;
}

export interface Checkpoint {
  chainId: string;
  requestedOutcome: string;
  projectRoot: string;
  lastRunId: string;
  updatedAt: string;
  steps: StepRecord[];
  stoppedAt: { step: number; boundary: string; approvalRunId: string; approvalTaskId: string } | null;
}

export async function readCheckpoint(dir: string): Promise<Checkpoint | null> {
  const read = readScopedFile(dir, 'checkpoint.json', { maxBytes: 4 * 1024 * 1024 });
  if (!read.ok) return null;
  const text = read.content.toString('utf8');
  try {
    return JSON.parse(text) as Checkpoint;
  } catch {
    return null;
  }
}

export async function writeCheckpoint(dir: string, checkpoint: Checkpoint): Promise<void> {
  await writeJsonAtomic(join(dir, 'checkpoint.json'), checkpoint, { label: 'work-cycle checkpoint' });
}

/** One sanitized tool invocation: workspace-relative arguments and counts, never file contents beyond masked snippets. */
export interface Invocation {
  at: string;
  runId: string;
  step: number;
  tool: string;
  args: Record<string, unknown>;
  outcome: Record<string, unknown>;
  durationMs: number;
}

export async function appendInvocation(dir: string, invocation: Invocation): Promise<void> {
  await appendFileNoFollow(join(dir, 'invocations.jsonl'), `${JSON.stringify(invocation)}\n`, { label: 'work-cycle evidence' });
}
