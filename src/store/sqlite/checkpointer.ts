import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * How often the worker thread folds the WAL back into the database file. Under a write burst the
 * WAL grows by thousands of pages a second; checkpointing often keeps it (and what a restart
 * replays) small.
 */
export const CHECKPOINT_INTERVAL_MS = 250;
/**
 * The WAL is reused from its start after a complete checkpoint but keeps its largest size on
 * disk; past this size it is truncated back when it is reused (SQLite's journal_size_limit).
 */
export const WAL_SIZE_LIMIT_BYTES = 8 * 1024 * 1024;
/**
 * While the worker runs, SQLite's own checkpoint (run by the COMMIT that crosses this many WAL
 * pages, on the event loop) is only a backstop for a stalled worker. SQLite's default is 1,000.
 */
export const BACKSTOP_AUTOCHECKPOINT_PAGES = 10_000;
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

/**
 * The worker: its own connection to the same file, one PASSIVE checkpoint per message. PASSIVE
 * never waits for the writer and never blocks it; the checkpoint's fsyncs of the WAL and of the
 * database file run on this thread instead of inside a COMMIT on the event loop. Source text (an
 * `eval` worker), so it runs the same from the compiled service and from the tests; its modules
 * come by dynamic import, which works whether the eval is taken as CommonJS or as an ES module.
 */
const WORKER_SOURCE = `
(async () => {
const { parentPort, workerData } = await import('node:worker_threads');
const Database = (await import(workerData.driver)).default;
const db = new Database(workerData.path, { fileMustExist: true, timeout: workerData.busyTimeoutMs });
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    const row = db.pragma('wal_checkpoint(PASSIVE)')[0];
    parentPort.postMessage({ ok: true, walPages: row.log, checkpointed: row.checkpointed });
  } catch (err) {
    parentPort.postMessage({ ok: false, error: String((err && err.message) || err) });
  }
});
})();
`;

type Reply = { ok: true; walPages: number; checkpointed: number } | { ok: false; error: string };

export interface CheckpointerStats {
  /** Checkpoints the worker completed. */
  completed: number;
  /** WAL pages copied into the database file by them, in total. */
  pagesCheckpointed: number;
  lastError: string | null;
}

export interface Checkpointer {
  stats(): CheckpointerStats;
  /** Stops the timer, waits for the checkpoint in flight and closes the worker's connection. */
  stop(): Promise<void>;
}

interface Logger {
  warn(obj: object, msg: string): void;
}

/**
 * Starts the checkpoint worker for an open database and lowers SQLite's own checkpoint to a
 * backstop. Should the worker fail, the backstop goes back to SQLite's default, so the WAL stays
 * bounded either way.
 */
export function startCheckpointer(
  path: string,
  options: {
    intervalMs?: number;
    busyTimeoutMs: number;
    logger?: Logger;
    /** Sets SQLite's own checkpoint threshold on the connection that commits (the writer thread's). */
    setAutocheckpoint: (pages: number) => void;
  },
): Checkpointer {
  const driver = pathToFileURL(createRequire(import.meta.url).resolve('better-sqlite3')).href;
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, path, busyTimeoutMs: options.busyTimeoutMs } });
  worker.unref();
  const stats: CheckpointerStats = { completed: 0, pagesCheckpointed: 0, lastError: null };
  let inFlight: { resolve: () => void } | null = null;
  let stopped = false;

  const restoreDefault = (reason: string) => {
    stats.lastError = reason;
    options.setAutocheckpoint(DEFAULT_AUTOCHECKPOINT_PAGES);
    options.logger?.warn({ path, reason }, 'SQLite checkpoint worker stopped; checkpoints run inside commits again');
  };

  // The writer thread opens its connection with the backstop and the WAL size limit already set.
  worker.on('message', (reply: Reply) => {
    if (reply.ok) {
      stats.completed += 1;
      stats.pagesCheckpointed += Math.max(0, reply.checkpointed);
      stats.lastError = null;
    } else {
      stats.lastError = reply.error;
    }
    inFlight?.resolve();
    inFlight = null;
  });
  const onFailure = (reason: string) => {
    inFlight?.resolve();
    inFlight = null;
    if (!stopped) restoreDefault(reason);
    stopped = true;
    clearInterval(timer);
  };
  let exited = false;
  const whenExited = new Promise<void>((resolve) =>
    worker.on('exit', (code) => {
      exited = true;
      onFailure(`worker exited with code ${code}`);
      resolve();
    }),
  );
  worker.on('error', (err) => onFailure(err.message));

  const timer = setInterval(() => {
    if (stopped || inFlight !== null) return;
    inFlight = { resolve: () => undefined };
    worker.postMessage('checkpoint');
  }, options.intervalMs ?? CHECKPOINT_INTERVAL_MS);
  timer.unref();

  return {
    stats: () => ({ ...stats }),
    async stop() {
      if (exited) return;
      stopped = true;
      clearInterval(timer);
      // The worker is unref'd so it never holds the process open, but a close must not end with
      // the event loop emptied while it waits for the worker's reply: hold a reference meanwhile.
      worker.ref();
      if (inFlight !== null) {
        const pending = inFlight;
        await new Promise<void>((resolve) => {
          pending.resolve = resolve;
        });
      }
      worker.postMessage('close');
      await whenExited;
    },
  };
}
