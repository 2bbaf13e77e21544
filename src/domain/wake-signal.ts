/**
 * A level-free "something changed" notice between two parts built apart: the admission path
 * notifies when a run became claimable, the runner (built later, from the same composition
 * root) subscribes and claims at once instead of waiting for its poll.
 */
export interface WakeSignal {
  notify(): void;
  /** Returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
}

export function createWakeSignal(): WakeSignal {
  const listeners = new Set<() => void>();
  return {
    notify() {
      for (const listener of listeners) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
