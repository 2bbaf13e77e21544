import { DomainError, ProgrammingError } from '../domain/errors.js';

type Phase = 'closed' | 'opening' | 'open' | 'closing';

/**
 * A read or write after the store closed (or before it opened): during shutdown a request or a
 * background write can still race the close, so this is `unavailable`, not a bug.
 */
const notOpen = (target: string) => new DomainError('unavailable', `state store ${target} is not open`);

/**
 * The open/close life of a driver's session, shared by every store driver: one open at a time,
 * a close that finishes in-flight work once however many callers await it, reads allowed until
 * the session is gone and writes only while it is open.
 */
export class StoreLifecycle<S> {
  private phase: Phase = 'closed';
  private closing: Promise<void> | null = null;
  private current: S | null = null;

  constructor(private readonly target: string) {}

  async open(start: () => Promise<S>): Promise<void> {
    if (this.phase !== 'closed') throw new ProgrammingError(`state store ${this.target} is already open`);
    this.phase = 'opening';
    try {
      this.current = await start();
      this.phase = 'open';
    } catch (err) {
      this.phase = 'closed';
      throw err;
    }
  }

  /** Runs `stop` once on the open session; later callers get the same promise. */
  close(stop: (session: S) => Promise<void>): Promise<void> {
    if (this.closing !== null) return this.closing;
    const session = this.current;
    if (session === null || this.phase !== 'open') return Promise.resolve();
    this.phase = 'closing';
    this.closing = (async () => {
      try {
        await stop(session);
      } finally {
        this.current = null;
        this.phase = 'closed';
        this.closing = null;
      }
    })();
    return this.closing;
  }

  /** The session while it exists (also during close), else null. */
  get session(): S | null {
    return this.current;
  }

  /** The session for reads; throws once the store is closed. */
  readable(): S {
    if (this.current === null) throw notOpen(this.target);
    return this.current;
  }

  /** The session for writes; throws unless the store is open (not opening, not closing). */
  writable(): S {
    if (this.current === null || this.phase !== 'open') throw notOpen(this.target);
    return this.current;
  }
}
