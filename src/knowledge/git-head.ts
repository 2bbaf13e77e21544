import { readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';

async function readText(path: string): Promise<string | null> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    return null;
  }
}

async function gitDirAt(dir: string): Promise<string | null> {
  const candidate = join(dir, '.git');
  try {
    const info = await stat(candidate);
    if (info.isDirectory()) return candidate;
    // A worktree or submodule: `.git` is a file naming the real git directory.
    const pointer = await readText(candidate);
    const m = pointer ? /^gitdir:\s*(.+)$/m.exec(pointer) : null;
    if (!m) return null;
    return isAbsolute(m[1]!) ? m[1]! : resolve(dir, m[1]!);
  } catch {
    return null;
  }
}

/**
 * The HEAD commit of the git repository holding `dir`, read from the repository files (no git
 * process is spawned), or null when there is none or it cannot be read. Provenance only.
 */
export async function gitHeadCommit(dir: string, now = Date.now()): Promise<string | null> {
  const gitDir = await cachedGitDir(resolve(dir), now);
  return gitDir === null ? null : headOf(gitDir);
}

/** How long where a folder's repository lives is remembered: a `git init` above it shows up after this. */
export const GIT_DIR_CACHE_MS = 30_000;
const gitDirCache = new Map<string, { gitDir: string | null; until: number }>();

/**
 * The walk up to the repository costs a stat per level, and doc-sync refreshes the index on every
 * run: where the repository lives is remembered for a while; HEAD itself is read every time.
 */
async function cachedGitDir(dir: string, now: number): Promise<string | null> {
  const hit = gitDirCache.get(dir);
  if (hit !== undefined && hit.until > now) return hit.gitDir;
  const gitDir = await findGitDir(dir);
  if (gitDirCache.size > 64) gitDirCache.clear();
  gitDirCache.set(dir, { gitDir, until: now + GIT_DIR_CACHE_MS });
  return gitDir;
}

async function headOf(gitDir: string): Promise<string | null> {
  const head = await readText(join(gitDir, 'HEAD'));
  if (!head) return null;
  if (/^[0-9a-f]{40}$/.test(head)) return head;
  const ref = /^ref:\s*(\S+)$/.exec(head)?.[1];
  if (!ref) return null;
  // A worktree keeps its refs in the common directory.
  const common = (await readText(join(gitDir, 'commondir'))) ?? '.';
  for (const base of [gitDir, resolve(gitDir, common)]) {
    const loose = await readText(join(base, ref));
    if (loose && /^[0-9a-f]{40}$/.test(loose)) return loose;
    const packed = await readText(join(base, 'packed-refs'));
    const line = packed?.split('\n').find((l) => l.endsWith(` ${ref}`));
    if (line) return line.slice(0, 40);
  }
  return null;
}

async function findGitDir(dir: string): Promise<string | null> {
  let current = dir;
  for (let depth = 0; depth < 40; depth += 1) {
    const gitDir = await gitDirAt(current);
    if (gitDir) return gitDir;
    const parent = dirname(current);
    if (parent === current) return null;
    current = parent;
  }
  return null;
}
