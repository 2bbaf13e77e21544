import { signalChildGroups } from '../common/child-groups.js';
import { ownProcessGroup } from '../common/process-table.js';

/**
 * How an orphaned worker ends: every group it started (project commands) and then its own
 * group, itself included, so nothing it started lives on. The group is killed only when this
 * worker leads it (the orchestrator spawns workers detached, so it does); a worker run by hand
 * inside someone else's group (a shell, a test runner) must not take that group down, and only
 * exits.
 */
export function endOrphanedWorker(exit: (code: number) => void): void {
  signalChildGroups('SIGKILL');
  if (ownProcessGroup() === process.pid) {
    try {
      process.kill(-process.pid, 'SIGKILL');
    } catch {
      // Nothing to do but exit.
    }
  }
  exit(137);
}

/**
 * Ends a worker whose orchestrator is gone. Workers lead their own process group (so a timeout
 * can kill their children), which also means a crash of the orchestrator does not take them
 * down; when the parent changes (the worker was re-parented) the work must stop, because restart
 * recovery will run the attempt again and it must never run twice at the same time. What the
 * worker started goes with it (endOrphanedWorker).
 */
export function exitWhenOrphaned(
  intervalMs = 100,
  /** What happens to an orphan; by default it ends with everything it started (endOrphanedWorker). */
  exit: (code: number) => void = () => endOrphanedWorker((code) => process.exit(code)),
  /**
   * The pid of the orchestrator that spawned this worker, which it passes as ORCHESTRATOR_PID.
   * Reading `process.ppid` at start-up instead would miss an orchestrator that died while the
   * worker was starting: the worker, already re-parented, would run on beside the takeover.
   */
  parentPid: number = expectedParentPid(),
): () => void {
  if (process.ppid !== parentPid) {
    exit(137);
    return () => undefined;
  }
  const timer = setInterval(() => {
    if (process.ppid !== parentPid) exit(137);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** ORCHESTRATOR_PID when the orchestrator set it; otherwise the parent seen now (run by hand). */
export function expectedParentPid(env: NodeJS.ProcessEnv = process.env): number {
  const stated = Number(env.ORCHESTRATOR_PID);
  return Number.isInteger(stated) && stated > 0 ? stated : process.ppid;
}
