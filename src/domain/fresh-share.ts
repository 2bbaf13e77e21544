/**
 * Wraps `work` so that every caller gets the result of a run that started after its call (it sees
 * every change made before it asked), while callers arriving during a run share the next one: at
 * most one run in progress and one queued, however many callers wait. Thirty-two doc-sync runs
 * arriving together cost two walks of the docs folder or two reads of the latest pack, not
 * thirty-two.
 */
export function freshShared<T>(work: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | null = null;
  let queued: Promise<T> | null = null;

  function start(): Promise<T> {
    const started = work().finally(() => {
      if (running === started) running = null;
    });
    running = started;
    return started;
  }

  return () => {
    if (queued !== null) return queued;
    if (running === null) return start();
    const settled = () => undefined;
    queued = running.then(settled, settled).then(() => {
      queued = null;
      return start();
    });
    return queued;
  };
}
