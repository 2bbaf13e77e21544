import type pg from 'pg';
import { withTransaction } from './transaction.js';

/** A batch's answer for an item it could not settle inside the batch: the item is then done on its own, after the commit. */
export const ALONE = Symbol('alone');

/** A first try's answer for an item it left to the batch's transaction. */
export const IN_BATCH = Symbol('in-batch');

export interface GroupCommitOptions<I, O> {
  pool: pg.Pool;
  /** The batch's work inside its transaction: one outcome per item, in order (or ALONE). */
  runBatch: (client: pg.PoolClient, items: I[]) => Promise<Array<O | typeof ALONE>>;
  /** One item on its own (its own transaction): an ALONE item, every item of a failed batch. */
  runOne: (item: I) => Promise<O>;
  /**
   * Optional: a first try at the batch without a transaction of its own (one statement that is
   * its own commit). The items it answers IN_BATCH, and all of them when it throws, go on to
   * `runBatch`. It must leave an item it does not answer unwritten.
   */
  tryFirst?: (items: I[]) => Promise<Array<O | typeof IN_BATCH>>;
  /** Items sharing a key never share a batch (the later waits for the next one). */
  keyOf: (item: I) => string;
  maxBatch: number;
  /** Batches committing at once; the items arriving meanwhile form the next. */
  maxInFlight: number;
}

interface Pending<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit: writes that arrive together are committed by one transaction, so they share its
 * statements and its WAL flush, and each caller's promise settles only after that commit (an
 * acknowledgement is never sent for a write that is not durable). Up to `maxInFlight` batches
 * commit side by side; what arrives while they do waits and forms the next batch, so a batch is
 * as large as the load makes it and a lone write waits for nothing but one turn of the event loop.
 *
 * A batch whose transaction fails (one item's row violating a constraint, a deadlock, a lost
 * connection) is rolled back whole and each of its items is then done on its own: only the item
 * that is at fault fails.
 */
export class GroupCommit<I, O> {
  private queue: Array<Pending<I, O>> = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(private readonly options: GroupCommitOptions<I, O>) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.options.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    // One turn of the event loop: the writes of requests parsed in the same turn join this batch.
    setImmediate(() => {
      this.scheduled = false;
      this.startBatch();
    });
  }

  private startBatch(): void {
    if (this.inFlight >= this.options.maxInFlight || this.queue.length === 0) return;
    const batch: Array<Pending<I, O>> = [];
    const keys = new Set<string>();
    const waiting: Array<Pending<I, O>> = [];
    for (const pending of this.queue) {
      const key = this.options.keyOf(pending.item);
      if (batch.length < this.options.maxBatch && !keys.has(key)) {
        keys.add(key);
        batch.push(pending);
      } else {
        waiting.push(pending);
      }
    }
    this.queue = waiting;
    this.inFlight++;
    void this.commit(batch).finally(() => {
      this.inFlight--;
      this.schedule();
    });
    this.schedule();
  }

  /**
   * A batch of one takes the batch's statements too: they are fewer than the single path's (one
   * statement per append collection, the finish and its task records in one), and a lone write
   * is the common case when several instances share the load.
   */
  private async commit(all: Array<Pending<I, O>>): Promise<void> {
    const batch = await this.settledFirst(all);
    if (batch.length === 0) return;
    let outcomes: Array<O | typeof ALONE>;
    try {
      outcomes = await withTransaction(this.options.pool, (client) =>
        this.options.runBatch(
          client,
          batch.map((pending) => pending.item),
        ),
      );
    } catch (err) {
      // Rolled back: each item again on its own, so only the one at fault fails (a batch of
      // one was that item: its error is the answer).
      if (batch.length === 1) {
        batch[0]!.reject(err);
        return;
      }
      await Promise.all(batch.map((pending) => this.alone(pending)));
      return;
    }
    await Promise.all(
      batch.map((pending, i) => {
        const outcome = outcomes[i]!;
        if (outcome === ALONE) return this.alone(pending);
        pending.resolve(outcome);
        return undefined;
      }),
    );
  }

  /** The items `tryFirst` settled are answered; the rest are returned for the transaction. */
  private async settledFirst(batch: Array<Pending<I, O>>): Promise<Array<Pending<I, O>>> {
    const { tryFirst } = this.options;
    if (tryFirst === undefined) return batch;
    let first: Array<O | typeof IN_BATCH>;
    try {
      first = await tryFirst(batch.map((pending) => pending.item));
    } catch {
      // A failed statement wrote nothing, or, its answer lost, all of it: the transaction then
      // decides for every item, and finds such a write stored.
      return batch;
    }
    const rest: Array<Pending<I, O>> = [];
    batch.forEach((pending, i) => {
      const outcome = first[i]!;
      if (outcome === IN_BATCH) rest.push(pending);
      else pending.resolve(outcome);
    });
    return rest;
  }

  private async alone(pending: Pending<I, O>): Promise<void> {
    try {
      pending.resolve(await this.options.runOne(pending.item));
    } catch (err) {
      pending.reject(err);
    }
  }
}
