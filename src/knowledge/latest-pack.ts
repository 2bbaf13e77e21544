import { statSync, type BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { deepFreeze } from '../store/deep-freeze.js';
import { freshShared } from '../domain/fresh-share.js';
import { LATEST_PACK_FILE, readPack, type KnowledgePack } from './pack.js';

/**
 * One version of the file: packs are replaced whole (written aside, then renamed), so a new pack
 * is a new inode with a new change time; size and modification time (in nanoseconds) as well
 * cover a writer that rewrote the file in place.
 */
function versionOf(info: BigIntStats): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}

/**
 * Reads `latest.json` of a pack folder, parsed once per version of the file. Every read still
 * asks the file system which version is there (one stat, shared by the callers that arrive while
 * it runs), so a pack written by another process or by hand is seen at the next read; only the
 * open, read and parse of an unchanged file are saved. An absent or unreadable pack reads as
 * null, as `readPack` does. The pack handed out is deep-frozen: callers share it.
 */
export function latestPackReader(dir: string): () => Promise<KnowledgePack | null> {
  const path = join(dir, LATEST_PACK_FILE);
  let cached: { version: string; pack: KnowledgePack | null } | null = null;

  return freshShared(async () => {
    // A synchronous stat: one metadata call on a local path costs about a microsecond, while the
    // thread pool's round trip (and, for an absent pack, the error it builds) cost some 30 µs of
    // CPU on every doc-sync run.
    let info: BigIntStats | undefined;
    try {
      info = statSync(path, { bigint: true, throwIfNoEntry: false });
    } catch {
      info = undefined;
    }
    if (info === undefined) {
      cached = null;
      return null;
    }
    const version = versionOf(info);
    if (cached?.version === version) return cached.pack;
    // Read after the stat: a pack replaced in between is cached under the older version, and the
    // next stat, seeing the newer one, reads it again. Never the other way round.
    const pack = await readPack(path);
    cached = { version, pack: pack === null ? null : deepFreeze(pack) };
    return cached.pack;
  });
}
