import { extname, relative, sep } from 'node:path';
import { existsSync } from 'node:fs';
import { watch, type FSWatcher } from 'chokidar';
import type { Logger } from 'pino';
import type { AdmissionOutcome, AdmissionRequest } from '../runtime/admission.js';
import { DOC_EXTENSIONS, DOC_WALK_LIMITS } from './docs-walk.js';
import { docChangeType } from '../lanes/doc-change/definition.js';

export interface DocWatcherOptions {
  docsPath: string;
  admit: (request: AdmissionRequest) => Promise<AdmissionOutcome>;
  logger: Logger;
  /** Quiet time collecting changes before a batch is admitted. */
  flushMs?: number;
  /** Most paths in one doc-change task. */
  maxBatch?: number;
}

export interface DocWatcher {
  /** Admits whatever is collected now. */
  flush(): Promise<void>;
  stop(): Promise<void>;
  /** Resolves once the initial scan is done and changes are being reported. */
  ready: Promise<void>;
}

/** Changed paths kept while waiting for a flush; beyond this a burst is already a full repair. */
const MAX_PENDING = 5000;

function isDocPath(path: string): boolean {
  return DOC_EXTENSIONS.has(extname(path).toLowerCase());
}

/**
 * Collects changed doc paths and admits them as internal `doc-change` tasks through the one
 * admission path, in batches: changes are gathered for `flushMs`, then at most `maxBatch` paths
 * go into one task, with one admission in flight at a time. A burst of a thousand changes thus
 * becomes a handful of tasks, not a thousand.
 */
export class DocChangeBatcher {
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private stopped = false;
  admitted = 0;

  constructor(private readonly options: Required<Pick<DocWatcherOptions, 'flushMs' | 'maxBatch'>> & Pick<DocWatcherOptions, 'admit' | 'logger'>) {}

  add(path: string): void {
    if (this.stopped) return;
    if (this.pending.size < MAX_PENDING) this.pending.add(path);
    this.schedule();
  }

  private schedule(): void {
    if (this.timer || this.flushing || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.options.flushMs);
    this.timer.unref();
  }

  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.flushing) return this.flushing;
    this.flushing = (async () => {
      while (this.pending.size > 0) {
        const batch = [...this.pending].slice(0, this.options.maxBatch);
        for (const path of batch) this.pending.delete(path);
        try {
          await this.options.admit({ type: docChangeType.type, payload: { paths: batch.sort() }, source: 'system', requestedBy: 'doc-watcher' });
          this.admitted += 1;
        } catch (err) {
          // Not admitted: put the paths back for the next flush rather than losing the change.
          for (const path of batch) if (this.pending.size < MAX_PENDING) this.pending.add(path);
          this.options.logger.error({ err, paths: batch.length }, 'doc-change admission failed');
          break;
        }
        if (this.stopped) break;
      }
    })().finally(() => {
      this.flushing = null;
      if (this.pending.size > 0) this.schedule();
    });
    return this.flushing;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/**
 * Watches `docsPath` (chokidar) for added, changed and removed Markdown and text docs and feeds
 * them to a DocChangeBatcher. Hidden entries and node_modules are ignored and links are not
 * followed, like the index walk. A docs folder that does not exist at start is not watched.
 */
export function startDocWatcher(options: DocWatcherOptions): DocWatcher {
  const batcher = new DocChangeBatcher({
    admit: options.admit,
    logger: options.logger,
    flushMs: options.flushMs ?? 500,
    maxBatch: options.maxBatch ?? 500,
  });
  if (!existsSync(options.docsPath)) {
    options.logger.warn({ docsPath: options.docsPath }, 'docs folder does not exist; the doc watcher is not started');
    return { flush: () => batcher.flush(), stop: async () => batcher.stop(), ready: Promise.resolve() };
  }
  const watcher: FSWatcher = watch(options.docsPath, {
    ignoreInitial: true,
    followSymlinks: false,
    depth: DOC_WALK_LIMITS.maxDepth,
    ignored: (path, stats) => {
      const rel = relative(options.docsPath, path);
      if (rel === '') return false;
      if (rel.split(sep).some((part) => part.startsWith('.') || part === 'node_modules')) return true;
      return stats?.isFile() === true && !isDocPath(path);
    },
  });
  watcher.on('all', (event, path) => {
    if ((event !== 'add' && event !== 'change' && event !== 'unlink') || typeof path !== 'string' || !isDocPath(path)) return;
    batcher.add(relative(options.docsPath, path).split(sep).join('/'));
  });
  watcher.on('error', (err) => options.logger.error({ err }, 'doc watcher error'));
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    ready,
    flush: () => batcher.flush(),
    async stop() {
      // Changes already seen are admitted (the runtime still runs), then nothing more is taken.
      await watcher.close();
      await batcher.flush().catch(() => undefined);
      batcher.stop();
    },
  };
}
