/**
 * Ends a worker whose orchestrator is gone. Workers lead their own process group (so a timeout
 * can kill their children), which also means a crash of the orchestrator does not take them
 * down; when the parent changes (the worker was re-parented) the work must stop, because restart
 * recovery will run the attempt again and it must never run twice at the same time.
 */
export function exitWhenOrphaned(intervalMs = 100, exit: (code: number) => void = (code) => process.exit(code)): () => void {
  const parentPid = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parentPid) exit(137);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
