import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GIT_DIR_CACHE_MS, gitHeadCommit } from '../../src/knowledge/git-head.js';
import { tempDir } from '../support/config.js';

const SHA_A = 'a'.repeat(40);
const SHA_B = 'b'.repeat(40);

function repoAt(root: string, sha: string): void {
  mkdirSync(join(root, '.git', 'refs', 'heads'), { recursive: true });
  writeFileSync(join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(root, '.git', 'refs', 'heads', 'main'), `${sha}\n`);
}

describe('gitHeadCommit', () => {
  it('finds the repository above the docs folder and reads HEAD afresh on every call', async () => {
    const root = tempDir('git-head-');
    repoAt(root, SHA_A);
    const docs = join(root, 'docs', 'guides');
    mkdirSync(docs, { recursive: true });
    expect(await gitHeadCommit(docs)).toBe(SHA_A);
    writeFileSync(join(root, '.git', 'refs', 'heads', 'main'), `${SHA_B}\n`);
    expect(await gitHeadCommit(docs)).toBe(SHA_B);
  });

  it('reads a packed ref and a worktree pointer file', async () => {
    const main = tempDir('git-head-main-');
    mkdirSync(join(main, '.git'), { recursive: true });
    writeFileSync(join(main, '.git', 'HEAD'), 'ref: refs/heads/trunk\n');
    writeFileSync(join(main, '.git', 'packed-refs'), `# pack-refs\n${SHA_B} refs/heads/trunk\n`);
    expect(await gitHeadCommit(main)).toBe(SHA_B);

    const worktree = tempDir('git-head-wt-');
    const gitDir = join(main, '.git', 'worktrees', 'wt');
    mkdirSync(gitDir, { recursive: true });
    writeFileSync(join(gitDir, 'HEAD'), `${SHA_A}\n`);
    writeFileSync(join(worktree, '.git'), `gitdir: ${gitDir}\n`);
    expect(await gitHeadCommit(worktree)).toBe(SHA_A);
  });

  it('remembers that a folder has no repository for a while, then looks again', async () => {
    const root = tempDir('git-head-none-');
    const now = Date.now();
    expect(await gitHeadCommit(root, now)).toBeNull();
    repoAt(root, SHA_A);
    expect(await gitHeadCommit(root, now + 1)).toBeNull();
    expect(await gitHeadCommit(root, now + GIT_DIR_CACHE_MS + 1)).toBe(SHA_A);
  });
});
