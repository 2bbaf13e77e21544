/**
 * Sends a signal to every process in the group led by `pid` (workers are spawned detached, so
 * the worker's pid is its group id and grandchildren it starts share it). Returns false when
 * the group no longer exists.
 */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

export interface GroupTerminator {
  /** SIGTERM to the group now, SIGKILL after the grace period if any member is still there. */
  terminate(): void;
  readonly started: boolean;
}

/**
 * Terminates a worker's process group politely, then firmly. The SIGKILL timer is not cancelled
 * when the worker itself exits: a grandchild that ignores SIGTERM must still die, or it would
 * keep running in the workspace with nobody supervising it.
 */
export function createGroupTerminator(pid: number, graceMs: number): GroupTerminator {
  let started = false;
  return {
    get started() {
      return started;
    },
    terminate() {
      if (started) return;
      started = true;
      if (!signalGroup(pid, 'SIGTERM')) return;
      setTimeout(() => {
        if (signalGroup(pid, 0)) signalGroup(pid, 'SIGKILL');
      }, graceMs);
    },
  };
}
