import { link, readFile, rename, rm, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { conflict, type DomainError } from '../domain/errors.js';
import { processStat } from '../common/process-table.js';
import { fsyncDirectory, isErrnoCode, writeFileSynced } from './durable-fs.js';

/**
 * Single-owner lock for a state target: `<target>.lock` holds the owner's pid. Restart recovery
 * treats every run left `running` as orphaned, which is only true when no other live process
 * works on the same store, so a second process must be refused rather than share it.
 */
export interface PidLock {
  readonly path: string;
  release(): Promise<void>;
}

/** Lock paths held by open stores of this process; a second open in the same process is refused too. */
const heldByThisProcess = new Set<string>();

const MAX_ATTEMPTS = 5;

/**
 * Takes the lock for `statePath` (a human-readable name used in errors). A lock whose pid is
 * dead, or is this process's own pid left by an instance that never closed, is stale and taken
 * over; a lock of a live process is an error.
 */
export async function acquirePidLock(lockPath: string, statePath: string): Promise<PidLock> {
  if (heldByThisProcess.has(lockPath)) {
    throw conflict(`state file ${statePath} is already open in this process`);
  }
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (await tryCreateLock(lockPath)) {
      heldByThisProcess.add(lockPath);
      return { path: lockPath, release: () => releasePidLock(lockPath) };
    }
    const holder = await readLockPid(lockPath);
    if (holder === undefined) continue; // removed between our attempt and the read: try again
    if (holder !== null && holder !== process.pid && isProcessAlive(holder)) {
      throw inUseError(statePath, holder, lockPath);
    }
    await moveStaleLockAside(lockPath, holder, statePath);
  }
  throw conflict(`could not take the lock ${lockPath} for state file ${statePath}: it keeps changing hands`);
}

/**
 * Creates the lock with its content in one step: the pid is written to a private file first and
 * then hard-linked to the lock name, which fails if the lock exists. A reader therefore never
 * sees an empty lock file that it could mistake for a stale one.
 */
async function tryCreateLock(lockPath: string): Promise<boolean> {
  const staging = `${lockPath}.${process.pid}.new`;
  await writeFileSynced(staging, `${process.pid}\n`);
  try {
    await link(staging, lockPath);
    await fsyncDirectory(dirname(lockPath));
    return true;
  } catch (err) {
    if (isErrnoCode(err, 'EEXIST')) return false;
    throw err;
  } finally {
    await rm(staging, { force: true });
  }
}

/**
 * Removes a stale lock without racing another process that is taking it over at the same time:
 * the lock is renamed away (atomic, only one process can move a given file), and if what was
 * moved turns out to be a fresh lock of someone else it is put back and that owner wins.
 */
async function moveStaleLockAside(lockPath: string, staleHolder: number | null, statePath: string): Promise<void> {
  const aside = `${lockPath}.${process.pid}.stale`;
  try {
    await rename(lockPath, aside);
  } catch (err) {
    if (isErrnoCode(err, 'ENOENT')) return;
    throw err;
  }
  const moved = await readLockPid(aside);
  if (moved === staleHolder) {
    await rm(aside, { force: true });
    return;
  }
  try {
    await link(aside, lockPath);
  } catch (err) {
    // Someone created a new lock meanwhile; theirs stands and the next attempt reads it.
    if (!isErrnoCode(err, 'EEXIST')) throw err;
  } finally {
    await rm(aside, { force: true });
  }
  if (typeof moved === 'number' && moved !== process.pid && isProcessAlive(moved)) {
    throw inUseError(statePath, moved, lockPath);
  }
}

async function releasePidLock(lockPath: string): Promise<void> {
  heldByThisProcess.delete(lockPath);
  // Only our own lock is removed: if it was (wrongly) taken over meanwhile, the new owner keeps it.
  if ((await readLockPid(lockPath)) !== process.pid) return;
  try {
    await unlink(lockPath);
  } catch (err) {
    if (!isErrnoCode(err, 'ENOENT')) throw err;
  }
}

/** The pid in a lock file; null when the content is not a pid, undefined when the file is gone. */
async function readLockPid(path: string): Promise<number | null | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (isErrnoCode(err, 'ENOENT')) return undefined;
    throw err;
  }
  const trimmed = text.trim();
  return /^\d+$/.test(trimmed) ? Number(trimmed) : null;
}

/**
 * Whether the lock's holder still runs. A zombie does not: it has exited and only waits for its
 * parent to collect its status (a supervisor that restarts the service at once may not have
 * yet), but it still answers signal 0, so the process table decides (`/proc/<pid>/stat`).
 */
function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: the process exists but belongs to another user, so it is alive.
    if (!isErrnoCode(err, 'EPERM')) return false;
  }
  const state = processStat(pid)?.state;
  return state !== 'Z' && state !== 'X';
}

function inUseError(statePath: string, pid: number, lockPath: string): DomainError {
  return conflict(
    `state file ${statePath} is in use by pid ${pid} (lock ${lockPath}); ` +
      'stop that process first, or remove the lock file if that pid is not an orchestrator',
  );
}
