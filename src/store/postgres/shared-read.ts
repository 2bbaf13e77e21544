import { deepFreeze } from '../deep-freeze.js';

/**
 * One read shared by the callers that ask for it in the same turn of the event loop: the
 * handlers of the runs one claim hands out all start by reading the state, and on a shared
 * database each read is a round trip. The read is sent on the next turn, after every sharer
 * asked, so each still sees every write committed before it asked; a caller arriving once it
 * is sent waits for the next one. The answer is frozen, as the drivers that keep the document
 * in memory hand theirs out: sharers cannot change each other's copy.
 */
export class SharedRead<T> {
  private next: Promise<T> | null = null;

  constructor(private readonly read: () => Promise<T>) {}

  get(): Promise<T> {
    this.next ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.next = null;
      return this.read().then(deepFreeze);
    });
    return this.next;
  }
}
