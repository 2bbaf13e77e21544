import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import type { Logger } from 'pino';
import type { AppConfig } from '../config/types.js';
import { readChildGroups } from '../common/child-groups.js';
import { bootId, hasProcTable, processStat, recordedGroupMembers, type RecordedGroup } from '../common/process-table.js';
import { RESULT_FILE_NAME } from './payload-file.js';

/**
 * The service's record of the worker process groups it started, kept on disk so that it
 * survives a kill -9 of the service: at start-up, before restart recovery re-admits their runs,
 * the service ends whatever groups its previous life recorded and that still exist (a worker
 * whose parent watch has not fired yet, or what a worker started outside its own group), and
 * removes the payload directories of their attempts (no payload outlives its attempt). Each
 * life of each service writes a file of its own, `<pid>-<start time>.json`, so instances sharing
 * the folder never touch each other's live entries; a file is only acted on once its owner is
 * gone. Ids are checked against start times (process-table.ts), so a group id reused by an
 * unrelated process since is left alone (docs/run-control.md, "Process trees").
 */

export interface LedgerEntry {
  group: RecordedGroup;
  runId: string;
  /** The worker's record of the groups it started outside its own (child-groups.ts). */
  childGroupsFile: string | null;
  /** The attempt's payload directory (`<tmpdir>/orchestrator-<runId>-*`); absent in entries of older lives. */
  directory?: string | null;
  at: string;
}

interface LedgerFile {
  version: 1;
  owner: { pid: number; startTime: number | null; bootId: string | null };
  groups: LedgerEntry[];
}

export interface WorkerGroupLedger {
  started(entry: Omit<LedgerEntry, 'at'>): void;
  ended(pgid: number): void;
}

/** A ledger that records nothing (tests and tools that spawn workers without a service around them). */
export const NO_GROUP_LEDGER: WorkerGroupLedger = { started: () => undefined, ended: () => undefined };

const LEDGER_FOLDER = 'process-groups';

/**
 * Where the ledger lives: beside the state file for the file and SQLite stores, in the logs
 * folder for the PostgreSQL store (it has no folder of its own; the record is per host anyway).
 */
export function groupLedgerDir(config: Pick<AppConfig, 'stateTarget' | 'logsDir'>): string {
  const target = config.stateTarget;
  if (target.startsWith('sql:')) return join(dirname(target.slice(4)), LEDGER_FOLDER);
  if (target.startsWith('/')) return join(dirname(target), LEDGER_FOLDER);
  return join(config.logsDir, LEDGER_FOLDER);
}

function ownerOfThisProcess(): LedgerFile['owner'] {
  return { pid: process.pid, startTime: processStat(process.pid)?.startTime ?? null, bootId: bootId() };
}

/**
 * The ledger of this service's life. Writes are synchronous and small (write a temporary file,
 * rename it over the old one): the entry is on disk before the worker can start anything, and a
 * kill -9 at any moment leaves either the old or the new file, never a torn one.
 */
export function createGroupLedger(dir: string, logger: Logger): WorkerGroupLedger {
  const owner = ownerOfThisProcess();
  const path = join(dir, `${owner.pid}-${owner.startTime ?? 'unknown'}.json`);
  const entries = new Map<number, LedgerEntry>();
  let failed = false;
  const write = () => {
    const file: LedgerFile = { version: 1, owner, groups: [...entries.values()] };
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(`${path}.tmp`, JSON.stringify(file), { mode: 0o600 });
      renameSync(`${path}.tmp`, path);
      failed = false;
    } catch (err) {
      // The ledger is a safety net for a crash; a worker still runs without it, but say so once.
      if (!failed) logger.error({ err, path }, 'could not record worker process groups; after a crash their processes may outlive the service');
      failed = true;
    }
  };
  return {
    started(entry) {
      entries.set(entry.group.pgid, { ...entry, at: new Date().toISOString() });
      write();
    },
    ended(pgid) {
      if (entries.delete(pgid)) write();
    },
  };
}

function readLedgerFile(path: string): LedgerFile | null {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as LedgerFile;
    return parsed && parsed.version === 1 && Array.isArray(parsed.groups) && typeof parsed.owner?.pid === 'number' ? parsed : null;
  } catch {
    return null;
  }
}

/** Whether the ledger's owner still runs: same pid, same start time, same boot. */
function ownerAlive(owner: LedgerFile['owner'], currentBoot: string | null): boolean {
  if (owner.bootId !== currentBoot) return false;
  const stat = processStat(owner.pid);
  return stat !== null && stat.state !== 'Z' && stat.state !== 'X' && stat.startTime === owner.startTime;
}

/** How long start-up waits for the groups it killed to be gone before it recovers their runs. */
const REAP_WAIT_MS = 5000;

/** What a payload directory's name starts with (payload-file.ts): nothing else is ever removed. */
const PAYLOAD_DIRECTORY_PREFIX = 'orchestrator-';

/**
 * Removes the payload directory of an attempt a previous life recorded, unless it holds the
 * worker's durable result: restart recovery finishes the attempt from it, and removes it then.
 * Only an absolute `orchestrator-*` directory (not a link) is removed. Answers whether it was.
 */
function removeLeftPayloadDirectory(directory: string): boolean {
  if (!isAbsolute(directory) || !basename(directory).startsWith(PAYLOAD_DIRECTORY_PREFIX)) return false;
  try {
    if (!lstatSync(directory).isDirectory()) return false;
  } catch {
    return false; // already gone
  }
  if (existsSync(join(directory, RESULT_FILE_NAME))) return false;
  rmSync(directory, { recursive: true, force: true });
  return true;
}

/**
 * Ends the process groups recorded by lives of the service that are gone (SIGKILL: their runs
 * are about to be recovered, and must never run twice at once), waits until they are gone, then
 * removes their attempts' payload directories (removeLeftPayloadDirectory) and those ledger
 * files. Files of live owners (another instance on this host) are left alone, their directories
 * too. Where /proc is not available no id can be checked against reuse: nothing is killed, and
 * no directory is removed either (its worker may still run).
 */
export async function endPreviousLifeGroups(dir: string, logger: Logger): Promise<{ groups: number; directories: number }> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json'));
  } catch {
    return { groups: 0, directories: 0 };
  }
  const self = ownerOfThisProcess();
  if (!hasProcTable()) {
    if (names.length > 0) logger.warn({ dir }, 'no /proc: process groups a previous life of the service recorded are not checked');
    return { groups: 0, directories: 0 };
  }
  const killed: RecordedGroup[] = [];
  const done: string[] = [];
  const left: Array<{ entry: LedgerEntry; thisBoot: boolean }> = [];
  for (const name of names) {
    const path = join(dir, name);
    const file = readLedgerFile(path);
    if (file && file.owner.pid === self.pid && file.owner.startTime === self.startTime) continue;
    if (file && ownerAlive(file.owner, self.bootId)) continue;
    done.push(path);
    if (file) left.push(...file.groups.map((entry) => ({ entry, thisBoot: file.owner.bootId === self.bootId })));
    // Processes do not outlive a reboot: a file of an earlier boot only needs removing.
    if (!file || file.owner.bootId !== self.bootId) continue;
    for (const entry of file.groups) {
      const groups = [entry.group, ...(entry.childGroupsFile ? readChildGroups(entry.childGroupsFile) : [])];
      for (const group of groups) {
        // Without the leader's start time a reused id cannot be told apart: left alone.
        if (group.startTime === null || recordedGroupMembers(group).length === 0) continue;
        try {
          process.kill(-group.pgid, 'SIGKILL');
          killed.push(group);
          logger.warn({ pgid: group.pgid, runId: entry.runId }, 'ended a worker process group left by a previous life of the service');
        } catch {
          // Gone meanwhile.
        }
      }
    }
  }
  const deadline = Date.now() + REAP_WAIT_MS;
  while (killed.some((group) => recordedGroupMembers(group).length > 0) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const survivors = killed.filter((group) => recordedGroupMembers(group).length > 0);
  if (survivors.length > 0) logger.error({ pgids: survivors.map((g) => g.pgid) }, 'worker process groups of a previous life survived SIGKILL');
  let directories = 0;
  for (const { entry, thisBoot } of left) {
    // A directory whose worker still lives (it survived, or its id cannot be checked) stays.
    if (!entry.directory || (thisBoot && recordedGroupMembers(entry.group).length > 0)) continue;
    if (removeLeftPayloadDirectory(entry.directory)) {
      directories += 1;
      logger.warn({ runId: entry.runId }, 'removed the payload directory of an attempt a previous life of the service left');
    }
  }
  for (const path of done) rmSync(path, { force: true });
  return { groups: killed.length, directories };
}
