import { linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendFileNoFollow, writeFileAtomic, writeJsonAtomic } from '../../src/workspace/file-writes.js';
import { tempDir } from '../support/config.js';
import { POSIX } from '../support/outside-files.js';

/** A folder the service writes in, and a file outside it that a link at the target would reach. */
function setup() {
  const base = tempDir('file-writes-');
  const folder = join(base, 'logs');
  mkdirSync(folder);
  const outside = join(base, 'outside.txt');
  writeFileSync(outside, 'outside content\n');
  return { folder, outside };
}

describe.skipIf(!POSIX)('writes that never go through a link', () => {
  it('writes and replaces a regular file atomically, leaving no temporary file', async () => {
    const { folder } = setup();
    await writeJsonAtomic(join(folder, 'index.json'), { a: 1 });
    await writeFileAtomic(join(folder, 'index.json'), 'second');
    expect(readFileSync(join(folder, 'index.json'), 'utf8')).toBe('second');
    expect(readdirSync(folder)).toEqual(['index.json']);
  });

  it('refuses a symbolic link or a hard link at the target, naming the reason and leaving both names as they were', async () => {
    const { folder, outside } = setup();
    symlinkSync(outside, join(folder, 'latest.json'));
    await expect(writeFileAtomic(join(folder, 'latest.json'), 'new', { label: 'knowledge pack' })).rejects.toMatchObject({
      code: 'scope_outside_workspace',
      message: 'knowledge pack latest.json is a symbolic link; not written',
    });
    expect(lstatSync(join(folder, 'latest.json')).isSymbolicLink()).toBe(true);

    linkSync(outside, join(folder, 'checkpoint.json'));
    await expect(writeJsonAtomic(join(folder, 'checkpoint.json'), { steps: [] })).rejects.toMatchObject({
      code: 'scope_outside_workspace',
      message: 'file checkpoint.json is a hard link (2 links): its content may live outside the workspace; not written',
    });
    expect(lstatSync(join(folder, 'checkpoint.json')).nlink).toBe(2);
    expect(readFileSync(outside, 'utf8')).toBe('outside content\n');
    expect(readdirSync(folder).sort()).toEqual(['checkpoint.json', 'latest.json']);
  });

  it('appends to a regular file, and refuses a symbolic link or a hard link at its name', async () => {
    const { folder, outside } = setup();
    await appendFileNoFollow(join(folder, 'drafts.jsonl'), 'one\n');
    await appendFileNoFollow(join(folder, 'drafts.jsonl'), 'two\n');
    expect(readFileSync(join(folder, 'drafts.jsonl'), 'utf8')).toBe('one\ntwo\n');

    symlinkSync(outside, join(folder, 'queue.jsonl'));
    await expect(appendFileNoFollow(join(folder, 'queue.jsonl'), 'x\n')).rejects.toMatchObject({ message: 'log file queue.jsonl is a symbolic link; not written' });
    linkSync(outside, join(folder, 'digest.jsonl'));
    await expect(appendFileNoFollow(join(folder, 'digest.jsonl'), 'x\n', { label: 'digest file' })).rejects.toMatchObject({
      message: 'digest file digest.jsonl is a hard link (2 links): its content may live outside the workspace; not written',
    });
    expect(readFileSync(outside, 'utf8')).toBe('outside content\n');
  });
});
