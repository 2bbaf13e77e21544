import { readScopedFile } from '../../worker-sdk/scoped-file.js';
import { join } from 'node:path';
import { appendFileNoFollow, writeJsonAtomic } from '../../workspace/file-writes.js';

/**
 * Where a work chain (a work cycle and the approval replays that continue it) keeps its
 * checkpoint and its invocation evidence: `<logsDir>/autonomous-work/<chain id>/`. The chain id
 * is made file-name safe here, so no payload value can steer the path.
 */
export function chainDirectory(logsDir: string, chainId: string): string {
  return join(logsDir, 'autonomous-work', chainId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 150));
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
  await writeJsonAtomic(join(dir, 'checkpoint.json'), checkpoint);
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
  await appendFileNoFollow(join(dir, 'invocations.jsonl'), `${JSON.stringify(invocation)}\n`);
}
