import { createHash, type Hash } from 'node:crypto';

/** JSON with object keys sorted at every level: equal content gives equal text whatever the key order a store returns. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Count and SHA-256 of a collection, fed one record at a time in the collection's order. */
export class CollectionDigest {
  private readonly hash: Hash = createHash('sha256');
  count = 0;

  add(record: unknown): void {
    this.hash.update(canonicalJson(record));
    this.hash.update('\n');
    this.count += 1;
  }

  result(): { count: number; sha256: string } {
    return { count: this.count, sha256: this.hash.copy().digest('hex') };
  }
}
