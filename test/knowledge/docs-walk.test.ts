import { mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOC_EXTENSIONS, DOC_WALK_LIMITS, walkDocs, type DocWalk } from '../../src/knowledge/docs-walk.js';
import { tempDir } from '../support/config.js';
import { outsideFixture, POSIX, uniqueMarker } from '../support/outside-files.js';

/** The walk's rules, one entry at a time in name order: the reference the batched walk must equal. */
function sequentialWalk(docsPath: string): Omit<DocWalk, 'exists'> {
  const result = { files: [] as DocWalk['files'], oversized: 0, truncated: false, skipped: [] as DocWalk['skipped'] };
  const visit = (dir: string, depth: number): void => {
    if (depth > DOC_WALK_LIMITS.maxDepth || result.truncated) return;
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const absolutePath = join(dir, entry.name);
      if (entry.isDirectory()) visit(absolutePath, depth + 1);
      else if (entry.isFile() && DOC_EXTENSIONS.has(extname(entry.name).toLowerCase())) {
        if (result.files.length >= DOC_WALK_LIMITS.maxFiles) {
          result.truncated = true;
          return;
        }
        const { size, mtimeMs } = statSync(absolutePath);
        if (size > DOC_WALK_LIMITS.maxFileBytes) result.oversized += 1;
        else result.files.push({ path: relative(docsPath, absolutePath).split(sep).join('/'), absolutePath, size, mtimeMs });
      }
      if (result.truncated) return;
    }
  };
  visit(docsPath, 0);
  result.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return result;
}

function write(root: string, path: string, content = `# ${path}\n`): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), content);
}

describe('walkDocs', () => {
  it('lists doc files in path order, skipping hidden entries, node_modules and other extensions, and counts oversized ones', async () => {
    const root = tempDir();
    for (let i = 0; i < 150; i += 1) write(root, `a-${String(i).padStart(3, '0')}.md`);
    write(root, 'b/nested/deep.markdown');
    write(root, 'b/image.png');
    write(root, 'c.txt');
    write(root, '.hidden/secret.md');
    write(root, 'node_modules/pkg/readme.md');
    write(root, 'huge.md', 'x'.repeat(DOC_WALK_LIMITS.maxFileBytes + 1));
    write(root, 'z/last.mdx');
    const walk = await walkDocs(root);
    expect(walk.exists).toBe(true);
    expect(walk).toEqual({ exists: true, ...sequentialWalk(root) });
    expect(walk.files).toHaveLength(153);
    expect(walk.oversized).toBe(1);
    expect(walk.files.map((f) => f.path)).toEqual(expect.arrayContaining(['b/nested/deep.markdown', 'c.txt', 'z/last.mdx']));
    expect(walk.files.some((f) => f.path.includes('secret') || f.path.includes('node_modules'))).toBe(false);
  });

  it('stops at maxFiles where a sequential walk stops, folders and files interleaved', async () => {
    const root = tempDir();
    const max = DOC_WALK_LIMITS.maxFiles;
    // Files before and after a folder, the folder itself crossing the limit.
    for (let i = 0; i < max - 100; i += 1) write(root, `a-${String(i).padStart(5, '0')}.md`);
    for (let i = 0; i < 150; i += 1) write(root, `m/f-${String(i).padStart(3, '0')}.md`);
    for (let i = 0; i < 50; i += 1) write(root, `z-${String(i).padStart(3, '0')}.md`);
    const walk = await walkDocs(root);
    const reference = sequentialWalk(root);
    expect(walk.truncated).toBe(true);
    expect(walk.files).toHaveLength(max);
    expect(walk.files.map((f) => f.path)).toEqual(reference.files.map((f) => f.path));
    expect(readdirSync(join(root, 'm')).length).toBe(150);
    expect(walk.files.some((f) => f.path.startsWith('z-'))).toBe(false);
  });

  it('reports a missing docs folder as not existing', async () => {
    const root = tempDir();
    expect(await walkDocs(join(root, 'absent'))).toMatchObject({ exists: false, files: [] });
    write(root, 'plain-file.md');
    expect((await walkDocs(join(root, 'plain-file.md'))).exists).toBe(false);
    expect(statSync(join(root, 'plain-file.md')).isFile()).toBe(true);
  });

  it('reports an empty docs folder, and one reached through a link, as existing', async () => {
    const root = tempDir();
    mkdirSync(join(root, 'empty'));
    expect(await walkDocs(join(root, 'empty'))).toEqual({ exists: true, files: [], oversized: 0, truncated: false, skipped: [] });
    mkdirSync(join(root, 'real'));
    write(join(root, 'real'), 'a.md');
    symlinkSync(join(root, 'real'), join(root, 'linked'));
    const walk = await walkDocs(join(root, 'linked'));
    expect(walk.exists).toBe(true);
    expect(walk.files.map((f) => f.path)).toEqual(['a.md']);
  });

  it.skipIf(!POSIX)('passes a hard-linked doc by and says why: its content may live outside the docs folder', async () => {
    const fx = outsideFixture('docs-walk-hard-link');
    try {
      const outside = fx.writeOutside('private.md', `# ${uniqueMarker('docs-walk')}\n`);
      fx.write('docs/guide.md', '# Guide\n');
      fx.hardLink('docs/notes/private.md', outside);
      const walk = await walkDocs(join(fx.workspace, 'docs'));
      expect(walk.files.map((f) => f.path)).toEqual(['guide.md']);
      expect(walk.skipped).toEqual([{ path: 'notes/private.md', reason: 'hard link (2 links): its content may live outside the workspace' }]);
    } finally {
      fx.cleanup();
    }
  });
});
