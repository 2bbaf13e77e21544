import type { Coordination } from './types.js';
import type { CacheInvalidator } from '../domain/cache-invalidation.js';

/**
 * Invalidation for writers: bumping a tag's generation changes the key of every cached read that
 * carries it, so the next read misses. Writers await it before answering, so no read that starts
 * after a write's response can see the old value.
 */
export function createCacheInvalidator(coordination: Coordination): CacheInvalidator {
  return {
    async invalidate(tags: string[]): Promise<void> {
      if (tags.length > 0) await coordination.bumpTags(tags);
    },
  };
}
