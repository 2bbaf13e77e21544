/**
 * Decides when a group commit runs. Both drivers buffer writes and make them durable in batches
 * (one fsync or one COMMIT per batch); this class owns the timing rule so it lives in one place:
 *
 * - at most one flush runs at a time;
 * - a flush requested while the store has been idle for `intervalMs` starts on the next turn of
 *   the event loop (so every write issued in the same tick joins it);
 * - otherwise it starts `intervalMs` after the previous flush started.
 *
 * `flush` must not reject: drivers settle their waiting writes themselves (resolve or reject).
 */
export class FlushScheduler {
  private timer: { cancel(): void } | null = null;
  private running: Promise<void> | null = null;
  private requested = false;
  private lastStartedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly intervalMs: number,
    private readonly flush: () => Promise<void>,
  ) {}

  request(): void {
    this.requested = true;
    if (this.running === null && this.timer === null) this.arm();
  }

  /** Runs every requested flush now, ignoring the interval, and resolves when none is left. */
  async drain(): Promise<void> {
    for (;;) {
      this.cancelTimer();
      if (this.running !== null) {
        await this.running;
        continue;
      }
      if (!this.requested) return;
      await this.start();
    }
  }

  private arm(): void {
    const wait = this.lastStartedAt + this.intervalMs - performance.now();
    if (wait > 0) {
      const handle = setTimeout(() => this.fire(), wait);
      this.timer = { cancel: () => clearTimeout(handle) };
    } else {
      const handle = setImmediate(() => this.fire());
      this.timer = { cancel: () => clearImmediate(handle) };
    }
  }

  private cancelTimer(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  private fire(): void {
    this.timer = null;
    void this.start();
  }

  /**
   * Marks the flush as running before calling it: a flush that requests another one while it is
   * still being called (a batch that leaves writes for the next one) must get it after itself,
   * never a second flush alongside.
   */
  private start(): Promise<void> {
    this.requested = false;
    this.lastStartedAt = performance.now();
    let settle!: () => void;
    const run = new Promise<void>((resolve) => (settle = resolve));
    this.running = run;
    void this.flush().finally(() => {
      this.running = null;
      if (this.requested && this.timer === null) this.arm();
      settle();
    });
    return run;
  }
}
