import { recordedGroupMembers, signalRecordedGroup, type RecordedGroup } from '../common/process-table.js';

/**
 * The processes of one worker attempt: the worker's own group (workers are spawned detached,
 * so the worker's pid is its group id and what it starts shares it), plus the groups the worker
 * recorded that it started outside it (project commands: src/worker-sdk/child-groups.ts), read
 * anew each time since the worker may start one at any moment.
 */
export interface AttemptProcesses {
  worker: RecordedGroup;
  childGroups: () => RecordedGroup[];
}

/** The strongest signal a stop delivered to a live process of the attempt. */
export type StopSignal = 'SIGTERM' | 'SIGKILL';

export interface GroupTerminator {
  /**
   * SIGTERM to every live group of the attempt now, SIGKILL after `graceMs` to whatever still
   * lives. The first call decides the grace; later calls do nothing.
   */
  terminate(graceMs: number): void;
  readonly started: boolean;
  /** The strongest signal delivered to a live process; null when nothing was left to signal. */
  readonly strongestSignal: StopSignal | null;
  /** Whether any process of the attempt still lives (zombies do not count). */
  alive(): boolean;
  /** Resolves true once no process of the attempt lives, false if `timeoutMs` passes first. */
  whenGone(timeoutMs: number): Promise<boolean>;
}

/**
 * How often `whenGone` looks again: at first often, since a cancel's latency is measured to the
 * last process gone, then less (a look at a live group reads /proc), up to the longest interval.
 */
const GONE_POLL_FIRST_MS = 5;
const GONE_POLL_LONGEST_MS = 50;

function groupsOf(processes: AttemptProcesses): RecordedGroup[] {
  return [processes.worker, ...processes.childGroups()];
}

/**
 * Terminates an attempt's processes politely, then firmly. The SIGKILL timer is not cancelled
 * when the worker itself exits: a grandchild that ignores SIGTERM must still die, or it would
 * keep running in the workspace with nobody supervising it. Every signal goes to a group only
 * while it is still the recorded one (process-table.ts), never to a later group reusing its id.
 */
export function createGroupTerminator(processes: AttemptProcesses): GroupTerminator {
  let started = false;
  let strongest: StopSignal | null = null;
  const deliver = (signal: StopSignal) => {
    let delivered = false;
    for (const group of groupsOf(processes)) delivered = signalRecordedGroup(group, signal) || delivered;
    if (delivered && strongest !== 'SIGKILL') strongest = signal;
  };
  const alive = () => groupsOf(processes).some((group) => recordedGroupMembers(group).length > 0);
  return {
    get started() {
      return started;
    },
    get strongestSignal() {
      return strongest;
    },
    alive,
    terminate(graceMs) {
      if (started) return;
      started = true;
      deliver('SIGTERM');
      if (strongest === null) return;
      setTimeout(() => {
        if (alive()) deliver('SIGKILL');
      }, graceMs).unref();
    },
    async whenGone(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      let pause = GONE_POLL_FIRST_MS;
      while (alive()) {
        if (Date.now() >= deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, pause));
        pause = Math.min(GONE_POLL_LONGEST_MS, Math.ceil(pause * 1.5));
      }
      return true;
    },
  };
}
