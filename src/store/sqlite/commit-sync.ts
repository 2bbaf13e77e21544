import { DomainError } from '../../domain/errors.js';
import type { WalSyncPort } from './wal-sync.js';

interface Waiter {
  /** The commit count this waiter needs covered. */
  upTo: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * Group sync of the WAL after COMMITs made with synchronous=NORMAL (which return after write(2),
 * before any fsync). Commits are counted; a commit is durable once an `fdatasync` that started
 * after it returned. One `fdatasync` is in flight at a time and every commit that lands meanwhile
 * shares the next one, so writers wait for at most the rest of the current sync plus one more.
 *
 * A failed `fdatasync` leaves what reached the disk uncertain (and retrying an fsync after an error
 * is not reliable on Linux), so, like the file store's journal, this turns broken: every waiting
 * write is rejected and later ones are refused until the store is reopened, when SQLite's WAL
 * recovery keeps whatever reached the disk intact.
 */
export class CommitSync {
  private committed = 0;
  private durable = 0;
  private waiters: Waiter[] = [];
  /** The sync in flight (never rejects), or null. */
  private syncing: Promise<void> | null = null;
  private failure: Error | null = null;

  constructor(
    private readonly port: WalSyncPort,
    private readonly databasePath: string,
  ) {}

  get broken(): Error | null {
    return this.failure;
  }

  /** Counts a COMMIT that wrote to the WAL; resolves once a sync started after it has returned. */
  afterCommit(): Promise<void> {
    this.committed++;
    return this.covered();
  }

  /**
   * Resolves once everything committed so far is durable: at once when it already is, otherwise
   * with the sync that covers the last commit. For a write that changed nothing but read what
   * earlier commits wrote (it must not be acknowledged before they are on disk).
   */
  covered(): Promise<void> {
    if (this.failure !== null) return Promise.reject(this.failure);
    const upTo = this.committed;
    if (upTo <= this.durable) return Promise.resolve();
    const promise = new Promise<void>((resolve, reject) => this.waiters.push({ upTo, resolve, reject }));
    this.startIfNeeded();
    return promise;
  }

  /** Resolves once no sync is in flight or owed: every commit so far is durable (or this broke). */
  async drain(): Promise<void> {
    while (this.syncing !== null) await this.syncing;
  }

  async close(): Promise<void> {
    await this.drain();
    await this.port.close();
  }

  private startIfNeeded(): void {
    if (this.syncing !== null || this.failure !== null || this.waiters.length === 0) return;
    // Read before the call: every commit counted so far returned from write(2) already.
    const upTo = this.committed;
    const sync = (async () => {
      try {
        await this.port.datasync();
      } catch (err) {
        this.fail(err as Error);
        return;
      }
      this.markDurable(upTo);
    })();
    this.syncing = sync;
    void sync.then(() => {
      this.syncing = null;
      this.startIfNeeded();
    });
  }

  private markDurable(upTo: number): void {
    this.durable = upTo;
    // Waiters are registered in commit order, so the covered ones are a prefix.
    let done = 0;
    while (done < this.waiters.length && this.waiters[done]!.upTo <= upTo) done++;
    for (const waiter of this.waiters.splice(0, done)) waiter.resolve();
  }

  private fail(cause: Error): void {
    this.failure = new DomainError(
      'unavailable',
      `state database ${this.databasePath} could not be synced (${cause.message}); writes are refused until restart`,
      undefined,
      { cause },
    );
    for (const waiter of this.waiters.splice(0)) waiter.reject(this.failure);
  }
}
