import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The result file a worker writes (fsynced) in its payload directory before answering.
export { RESULT_FILE_NAME } from '../common/worker-protocol.js';

export interface PayloadFile {
  directory: string;
  path: string;
  /** Removes the directory and the payload; safe to call more than once. */
  remove(): Promise<void>;
  /** Removes the payload file only, once the worker is gone: what else the directory holds stays. */
  removePayload(): Promise<void>;
}

/** Run ids are client-supplied; only these characters may reach a file name. */
export function sanitizeRunId(runId: string): string {
  const safe = runId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100);
  return safe === '' ? 'run' : safe;
}

/**
 * Writes the payload to `<tmpdir>/orchestrator-<runId>-<random>/payload.json`. mkdtemp creates the
 * directory 0700 with an unguessable suffix and the file is written 0600 with `wx`, so no other
 * local user can read a payload or swap the file before the worker opens it.
 */
export async function writePayloadFile(runId: string, payload: Record<string, unknown>): Promise<PayloadFile> {
  const directory = await mkdtemp(join(tmpdir(), `orchestrator-${sanitizeRunId(runId)}-`));
  const path = join(directory, 'payload.json');
  const remove = () => rm(directory, { recursive: true, force: true });
  try {
    await writeFile(path, JSON.stringify(payload), { mode: 0o600, flag: 'wx' });
  } catch (err) {
    await remove();
    throw err;
  }
  return { directory, path, remove, removePayload: () => rm(path, { force: true }) };
}
