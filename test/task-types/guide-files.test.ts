import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_TASK_TYPES } from '../../src/lanes/built-in.js';
import { REPO_ROOT as ROOT } from '../support/paths.js';

const guide = readFileSync(join(ROOT, 'docs', 'task-types.md'), 'utf8');
/** The guide's "The files" section: its table is the one that lists paths (others list fields). */
const filesSection = guide.slice(guide.indexOf('## The files'), guide.indexOf('\n## ', guide.indexOf('## The files') + 1));
/** The paths in the first column of the guide's "The files" table. */
const listed = [...filesSection.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!);

describe('docs/task-types.md lists the files a task type is built from', () => {
  it('names only files that exist (a <type> path exists for every built-in type)', () => {
    expect(listed.length).toBeGreaterThan(5);
    for (const path of listed) {
      const paths = path.includes('<type>') ? BUILT_IN_TASK_TYPES.map((t) => path.replace('<type>', t.type)) : [path];
      for (const p of paths) expect(existsSync(join(ROOT, p)), p).toBe(true);
    }
  });

  it('names every module of src/task-types', () => {
    const modules = readdirSync(join(ROOT, 'src', 'task-types')).map((f) => `src/task-types/${f}`);
    expect(modules.filter((m) => !listed.includes(m))).toEqual([]);
  });

  it('every folder under src/lanes with a definition is a registered built-in type, and each type has its folder', () => {
    const folders = readdirSync(join(ROOT, 'src', 'lanes'), { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(ROOT, 'src', 'lanes', d.name, 'definition.ts')))
      .map((d) => d.name)
      .sort();
    expect(folders).toEqual(BUILT_IN_TASK_TYPES.map((t) => t.type).sort());
  });
});
