/**
 * Limit buckets (config `limits`, docs/queue.md): named caps on the runs matching them. A run is
 * claimed only when every bucket it matches has room; one waiting for a bucket stays ready (it
 * holds no run slot) and is claimed by a later claim once the bucket has room. Nothing is stored
 * per bucket: a claim counts the runs themselves, so a change of limits neither loses nor
 * duplicates a waiting run.
 */
export interface LimitBucket {
  name: string;
  /** Which runs it caps: of these types (absent: any) and with a concurrency key starting so (absent: any, unkeyed included). */
  match: { types?: readonly string[]; keyPrefix?: string };
  /** At most this many running at once. */
  concurrency?: number;
  /** At most this many running at once per concurrency key (unkeyed runs count as one key). */
  perKey?: number;
  /** At most `max` starts in any `windowSeconds`: a run past it waits, it is never refused. */
  rate?: { max: number; windowSeconds: number };
}
