import { dirname } from 'node:path';
import { DomainError } from '../../domain/errors.js';
import { nodeStoreFs, type StoreFileHandle, type StoreFs } from '../store-fs.js';

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

interface PendingLine {
  seq: number;
  line: string;
}

/**
 * The append side of `<state>.journal`. Lines are buffered as writes happen and written in
 * batches, one append + fdatasync per batch (group commit); a write's promise resolves once the
 * batch holding its line is on disk. When to write a batch is the FlushScheduler's decision,
 * this class only knows how.
 *
 * After a failed append or fsync the on-disk state is uncertain (and retrying an fsync after an
 * error is not reliable on Linux), so the journal turns broken: waiting writes are rejected and
 * later ones refused until the store is reopened, which replays whatever reached the disk.
 */
export class Journal {
  private pending: PendingLine[] = [];
  private waiters: Waiter[] = [];
  private durableSeq: number;
  private enqueuedSeq: number;
  private failure: Error | null = null;
  /** The fdatasync in flight (never rejects), or null. */
  private syncing: Promise<void> | null = null;
  /** Size of the journal file, for the compaction threshold. */
  bytes: number;
  entries: number;

  private constructor(
    readonly path: string,
    private handle: StoreFileHandle,
    lastSeq: number,
    size: { bytes: number; entries: number },
  ) {
    this.durableSeq = lastSeq;
    this.enqueuedSeq = lastSeq;
    this.bytes = size.bytes;
    this.entries = size.entries;
  }

  /** Opens the journal for appending; `lastSeq` is the newest seq already durable (snapshot + replay). */
  static async open(path: string, lastSeq: number, size: { bytes: number; entries: number }, fs: StoreFs = nodeStoreFs): Promise<Journal> {
    return new Journal(path, await fs.open(path, 'a'), lastSeq, size);
  }

  get broken(): Error | null {
    return this.failure;
  }

  get hasPending(): boolean {
    return this.pending.length > 0;
  }

  /** Buffers one line; resolves when it is durable. `seq` must be the next seq in order. */
  append(seq: number, line: string): Promise<void> {
    if (this.failure !== null) return Promise.reject(this.failure);
    this.pending.push({ seq, line });
    this.enqueuedSeq = seq;
    return this.whenDurable(seq);
  }

  /** Resolves once every line buffered so far is durable. */
  barrier(): Promise<void> {
    if (this.failure !== null) return Promise.reject(this.failure);
    return this.whenDurable(this.enqueuedSeq);
  }

  /**
   * Writes every buffered line as one batch and starts the fdatasync that makes it durable; its
   * writers are acknowledged when that fdatasync returns. Pipelined: the batch is appended while
   * the previous batch's fdatasync may still run, and its own fdatasync starts only after that
   * one returned (and after its own append), so it covers its bytes. Resolves once the previous
   * fdatasync is done, so at most one append overlaps one fdatasync. Never rejects: failures
   * settle the waiters.
   */
  async writePending(): Promise<void> {
    if (this.failure !== null || this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    const text = batch.map((p) => `${p.line}\n`).join('');
    const previous = this.syncing;
    try {
      await this.handle.append(text);
    } catch (err) {
      this.fail(err as Error);
      await previous;
      return;
    }
    this.bytes += Buffer.byteLength(text);
    this.entries += batch.length;
    const handle = this.handle;
    const lastSeq = batch[batch.length - 1]!.seq;
    const sync = (async () => {
      await previous;
      if (this.failure !== null) return;
      try {
        await handle.datasync();
      } catch (err) {
        this.fail(err as Error);
        return;
      }
      this.markDurable(lastSeq);
    })();
    this.syncing = sync;
    void sync.finally(() => {
      if (this.syncing === sync) this.syncing = null;
    });
    await previous;
  }

  /** Resolves once no fdatasync is in flight: every line written so far is durable (or the journal broke). */
  async synced(): Promise<void> {
    while (this.syncing !== null) await this.syncing;
  }

  /**
   * A snapshot covering every seq up to `seq` is now durable: buffered lines it covers need not
   * be written and their writers are acknowledged.
   */
  coveredBySnapshot(seq: number): void {
    this.pending = this.pending.filter((p) => p.seq > seq);
    this.markDurable(seq);
  }

  /**
   * Seals the current segment as `sealedPath` and continues in a new, empty file at `path`: a
   * compaction's snapshot then covers the sealed segment while new lines go to the next one.
   * Must run between batches (in the flush slot), so every line written so far is in the sealed
   * segment. The directory fsync makes both the rename and the new file durable before any line
   * is acknowledged from the new file: it takes the place of the sync in flight, so the next
   * batch is appended meanwhile and its own fdatasync (and acknowledgement) waits for it, like
   * a batch waits for the previous batch's fdatasync, instead of the flush slot waiting for it.
   * A failure leaves the on-disk names uncertain, so the journal turns broken, as after a failed
   * append.
   */
  async rotate(sealedPath: string, fs: StoreFs): Promise<void> {
    // The sealed segment is complete and synced before it gets its name (replay relies on it).
    await this.synced();
    if (this.failure !== null) throw this.failure;
    const sealed = this.handle;
    try {
      await fs.rename(this.path, sealedPath);
      this.handle = await fs.open(this.path, 'a');
    } catch (err) {
      this.fail(err as Error);
      throw this.failure ?? err;
    }
    this.bytes = 0;
    this.entries = 0;
    const directorySync = (async () => {
      try {
        await fs.syncDirectory(dirname(this.path));
      } catch (err) {
        this.fail(err as Error);
      }
    })();
    this.syncing = directorySync;
    void directorySync.finally(() => {
      if (this.syncing === directorySync) this.syncing = null;
    });
    // Every line of the sealed segment is durable already; closing it changes nothing on disk.
    await sealed.close().catch(() => undefined);
  }

  /** Empties the journal file after a snapshot made its content redundant. */
  async restart(): Promise<void> {
    await this.synced();
    await this.handle.truncate(0);
    await this.handle.datasync();
    this.bytes = 0;
    this.entries = 0;
  }

  async close(): Promise<void> {
    await this.synced();
    await this.handle.close();
  }

  private whenDurable(seq: number): Promise<void> {
    if (seq <= this.durableSeq) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
  }

  private markDurable(seq: number): void {
    if (seq > this.durableSeq) this.durableSeq = seq;
    // Waiters are registered in seq order, so the acknowledged ones are a prefix.
    let done = 0;
    while (done < this.waiters.length && this.waiters[done]!.seq <= this.durableSeq) done++;
    for (const waiter of this.waiters.splice(0, done)) waiter.resolve();
  }

  private fail(cause: Error): void {
    this.failure = new DomainError(
      'unavailable',
      `state journal ${this.path} could not be written (${cause.message}); writes are refused until restart`,
      undefined,
      { cause },
    );
    this.pending = [];
    for (const waiter of this.waiters.splice(0)) waiter.reject(this.failure);
  }
}
