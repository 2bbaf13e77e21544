/**
 * A map whose entries carry their own deadline. Reads ignore expired entries; `sweep` drops them
 * so that keys nobody reads again (a client IP seen once, a finished lock) do not pile up.
 */
export class ExpiringMap<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  get(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** The entry's deadline (epoch ms), or undefined when absent or expired. */
  expiresAt(key: string, now: number): number | undefined {
    return this.get(key, now) === undefined ? undefined : this.entries.get(key)?.expiresAt;
  }

  set(key: string, value: V, expiresAt: number): void {
    this.entries.set(key, { value, expiresAt });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  sweep(now: number): void {
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt <= now) this.entries.delete(key);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
