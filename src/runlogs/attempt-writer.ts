import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { forwardedLine, type RunLogLine } from '../domain/run-log-line.js';
import type { StateStore } from '../store/types.js';
import { attemptIdOf } from '../domain/run-events.js';
import { boundLine } from './bound-line.js';
import { BoundedLines } from './bounded-lines.js';
import type { RunLogLimits } from './limits.js';
import { LineSplitter } from './line-splitter.js';
import type { LineRedactor } from './redact-line.js';
import { RUN_LOG_COLLECTION, RUN_LOG_INDEX_COLLECTION, type RunLogIndexEntry, type StoredAttemptLog } from './run-log-docs.js';
import type { AttemptLog, AttemptLogView, LoggedAttempt, RunLogStream } from './types.js';

export interface AttemptWriterDeps {
  store: StateStore;
  clock: Clock;
  logger: Logger;
  limits: RunLogLimits;
  redact: LineRedactor;
  /** Told of every kept line (the book fans it out and schedules the flush). */
  onKept: (writer: AttemptWriter, line: RunLogLine) => void;
  /** Told once the writer is closed and its last lines are written. */
  onClosed: (writer: AttemptWriter) => void;
}

/** Removes the stored log of one attempt, lines first: an index entry never outlives nothing. */
export async function deleteAttemptLog(store: StateStore, attemptId: string): Promise<void> {
  await store.deleteDoc(RUN_LOG_COLLECTION, attemptId);
  await store.deleteDoc(RUN_LOG_INDEX_COLLECTION, attemptId);
}

/**
 * One attempt's log: its kept lines in memory (bounded), written to the store whole by `save`,
 * at most one write at a time. The index entry goes first, so every stored log can be found by
 * the retention sweep; the attempt that pushes the run past the attempts cap removes the oldest
 * one's log in the same first write.
 */
export class AttemptWriter implements AttemptLog {
  readonly runId: string;
  readonly attemptId: string;
  private readonly lines: BoundedLines;
  /** Made on the first stderr chunk: most attempts (in-process handlers) never have one. */
  private splitter: LineSplitter | null = null;
  private dirty = false;
  private indexed = false;
  private closed = false;
  private closing: Promise<void> | null = null;
  /** The write in progress and at most one queued after it. */
  private saving: Promise<void> = Promise.resolve();
  private queued = 0;
  private warned = false;

  constructor(
    private readonly attempt: LoggedAttempt,
    private readonly deps: AttemptWriterDeps,
  ) {
    this.runId = attempt.runId;
    this.attemptId = attemptIdOf(attempt.runId, attempt.attempt);
    this.lines = new BoundedLines(deps.limits.maxLines, deps.limits.maxBytes);
  }

  write(stream: RunLogStream, text: string): void {
    if (this.closed) return;
    for (const line of text.split('\n')) this.keep(stream, line.endsWith('\r') ? line.slice(0, -1) : line, 0);
  }

  stderr(chunk: Buffer | string): void {
    if (this.closed) return;
    // A project command's lines come marked with their stream (forwardedLine); the worker's own are stderr.
    this.splitter ??= new LineSplitter(this.deps.limits.pendingMaxBytes, (text, skipped) => {
      const { stream, line } = forwardedLine(text);
      this.keep(stream, line, skipped);
    });
    this.splitter.write(chunk);
  }

  get hasUnsaved(): boolean {
    return this.dirty;
  }

  view(): AttemptLogView {
    return { attemptId: this.attemptId, lines: this.lines.lines(), truncated: this.lines.truncated };
  }

  /** Writes the kept lines if the store does not have them yet; one write at a time, at most one waiting. */
  save(): Promise<void> {
    // A write already waiting to start will take whatever is kept by then.
    if (this.queued > 0) return this.saving;
    this.queued += 1;
    this.saving = this.saving.then(async () => {
      this.queued -= 1;
      if (this.dirty) await this.writeNow();
    });
    return this.saving;
  }

  close(): Promise<void> {
    this.closing ??= this.finish();
    return this.closing;
  }

  private async finish(): Promise<void> {
    this.splitter?.end();
    this.closed = true;
    if (this.dirty) {
      await this.save();
      // One more try for a write that failed (a store briefly away); after that the lines are lost.
      if (this.dirty) await this.save();
    } else {
      // Nothing new, but a timer's write may still be on its way: the attempt ends after it.
      await this.saving;
    }
    if (this.dirty) this.deps.logger.error({ runId: this.runId, attemptId: this.attemptId }, 'run log lost: its last lines could not be written to the store');
    this.deps.onClosed(this);
  }

  private keep(stream: RunLogStream, raw: string, skippedBytes: number): void {
    if (raw.length === 0 && skippedBytes === 0) return;
    const text = boundLine(this.deps.redact(raw, { cut: skippedBytes > 0 }), this.deps.limits.lineMaxBytes, skippedBytes);
    if (text.trim().length === 0) return;
    const at = this.deps.clock.now().toISOString();
    this.lines.push({ at, stream, line: text });
    this.dirty = true;
    this.deps.onKept(this, { runId: this.runId, attemptId: this.attemptId, at, stream, line: text });
  }

  private async writeNow(): Promise<void> {
    this.dirty = false;
    const doc: StoredAttemptLog = {
      runId: this.runId,
      taskId: this.attempt.taskId,
      attemptId: this.attemptId,
      lines: this.lines.lines(),
      truncated: this.lines.truncated,
      updatedAt: this.deps.clock.now().toISOString(),
    };
    try {
      if (!this.indexed) {
        const entry: RunLogIndexEntry = { runId: this.runId, taskId: this.attempt.taskId, attemptId: this.attemptId, runSeq: this.attempt.seq };
        await this.deps.store.putDoc(RUN_LOG_INDEX_COLLECTION, this.attemptId, { ...entry });
        const beyondCap = this.attempt.attempt - this.deps.limits.maxAttemptsPerRun;
        if (beyondCap >= 1) await deleteAttemptLog(this.deps.store, attemptIdOf(this.runId, beyondCap));
        this.indexed = true;
      }
      await this.deps.store.putDoc(RUN_LOG_COLLECTION, this.attemptId, { ...doc });
    } catch (err) {
      this.dirty = true;
      if (!this.warned) this.deps.logger.warn({ err, runId: this.runId, attemptId: this.attemptId }, 'run log not written to the store yet; retried');
      this.warned = true;
    }
  }
}
