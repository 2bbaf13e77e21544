import { isAbsolute, posix, win32 } from 'node:path';
import type { TaskHandler } from '../handler-types.js';
import { appendDocChanges, docChangeBufferPath, DOC_CHANGE_THRESHOLD } from './doc-change-buffer.js';
import { failure } from './outcome.js';

/** A doc path relative to docsPath in `/` form, or null when it is absolute or climbs out. */
export function normalizeDocPath(raw: string): string | null {
  if (raw.includes('\0') || isAbsolute(raw) || win32.isAbsolute(raw)) return null;
  const normalized = posix.normalize(raw.replace(/\\/g, '/'));
  if (normalized === '.' || normalized === '..' || normalized.startsWith('../')) return null;
  return normalized.replace(/^\.\//, '');
}

/**
 * doc-change (internal): records changed doc paths in the buffer file and reports whether the
 * drift threshold is reached. It does not admit the drift-repair itself: that needs the shared
 * coordination lock, active-repair and cooldown checks the runtime owns. `pendingPaths` is what
 * that repair would take over (then drained with drainDocChanges).
 */
export const docChange: TaskHandler = async (_state, config, input) => {
  const raw = input.payload.paths;
  if (!Array.isArray(raw) || !raw.every((p) => typeof p === 'string')) {
    return failure('doc-change payload.paths must be an array of strings');
  }
  const accepted: string[] = [];
  const rejectedPaths: string[] = [];
  for (const path of raw as string[]) {
    const normalized = normalizeDocPath(path);
    if (normalized === null) rejectedPaths.push(path);
    else accepted.push(normalized);
  }
  const buffer = await appendDocChanges(config, accepted, input.clock.now());
  return {
    status: 'completed',
    result: {
      bufferedPaths: buffer.pending.length,
      thresholdReached: buffer.pending.length >= DOC_CHANGE_THRESHOLD,
      threshold: DOC_CHANGE_THRESHOLD,
      pendingPaths: buffer.pending,
      bufferPath: docChangeBufferPath(config),
      ...(rejectedPaths.length > 0 ? { rejectedPaths } : {}),
    },
  };
};
