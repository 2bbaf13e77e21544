/**
 * What a run of an operator type keeps of the manifest it was admitted with: everything the
 * program worker needs to run it, stored in the run's payload under a service-reserved key (no
 * client can send a `__` key; reads of the run leave them out). A reload that changes or removes
 * the type later does not change what an admitted run executes, on whichever instance claims it.
 * This module imports nothing: the program worker loads it.
 */
export const PROGRAM_PAYLOAD_KEY = '__taskType';

export interface ProgramSnapshot {
  type: string;
  /** The type's folder under the task types folder; each instance resolves it against its own. */
  folder: string;
  /** The manifest's digest (docs/task-types.md). */
  version: string;
  /**
   * The sha256 of the type's folder at admission: the attempt runs the program from the snapshot
   * of that digest (src/operator-types/program-store.ts). Absent on runs admitted before
   * snapshots existed: those run from the folder.
   */
  digest?: string;
  command: string[];
  network: boolean;
  timeoutMs: number | null;
  scopeFields: string[];
}

/** The snapshot as the worker gets it: the program's folder (its snapshot) resolved by the instance that spawned it. */
export interface ProgramSpec extends ProgramSnapshot {
  directory: string;
}

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** The snapshot a payload carries, or null when it carries none (or a damaged one). */
export function readProgramSnapshot(payload: Readonly<Record<string, unknown>>): ProgramSnapshot | null {
  const v = payload[PROGRAM_PAYLOAD_KEY];
  if (typeof v !== 'object' || v === null) return null;
  const s = v as Record<string, unknown>;
  const ok =
    typeof s.type === 'string' &&
    typeof s.folder === 'string' &&
    typeof s.version === 'string' &&
    isStringArray(s.command) &&
    s.command.length > 0 &&
    typeof s.network === 'boolean' &&
    (s.timeoutMs === null || typeof s.timeoutMs === 'number') &&
    isStringArray(s.scopeFields) &&
    (s.digest === undefined || (typeof s.digest === 'string' && /^[0-9a-f]{64}$/.test(s.digest)));
  if (!ok) return null;
  return {
    type: s.type as string,
    folder: s.folder as string,
    version: s.version as string,
    command: s.command as string[],
    network: s.network as boolean,
    timeoutMs: s.timeoutMs as number | null,
    scopeFields: s.scopeFields as string[],
    ...(typeof s.digest === 'string' ? { digest: s.digest } : {}),
  };
}

/** The spec a worker was handed, or null. */
export function readProgramSpec(payload: Readonly<Record<string, unknown>>): ProgramSpec | null {
  const snapshot = readProgramSnapshot(payload);
  const directory = (payload[PROGRAM_PAYLOAD_KEY] as { directory?: unknown } | undefined)?.directory;
  return snapshot && typeof directory === 'string' ? { ...snapshot, directory } : null;
}
