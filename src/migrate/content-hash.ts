import { createHash, type Hash } from 'node:crypto';
import { canonicalJson } from '../domain/canonical-json.js';


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
