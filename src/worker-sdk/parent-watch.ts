/**
 * Ends a worker whose orchestrator is gone. Workers lead their own process group (so a timeout
 * can kill their children), which also means a crash of the orchestrator does not take them
 * down; when the parent changes (the worker was re-parented) the work must stop, because restart
 * recovery will run the attempt again and it must never run twice at the same time.
 */
export function exitWhenOrphaned(
  intervalMs = 100,
  exit: (code: number) => void = (code) => process.exit(code),
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
