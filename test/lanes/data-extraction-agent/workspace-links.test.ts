import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractData } from '../../../agents/data-extraction-agent/extract.js';
import { expectNothingOf, fileState, outsideFixture, POSIX, uniqueMarker, type OutsideFixture } from '../../support/outside-files.js';

/**
 * data-extraction reads the file its payload names. That file may be a symbolic link, a hard
 * link of a file outside the workspace, a FIFO, or lie below a linked folder: none is read, and
 * no record of the outside file reaches the result.
 */
describe.skipIf(!POSIX)('data-extraction and a source file that leads outside the workspace', () => {
  let fx: OutsideFixture;
  const marker = uniqueMarker('extract');
  let outside: string;
  const extract = (path: string) => extractData({ source: { path }, format: 'csv' }, { workspaceRoot: fx.workspace, runId: null });

  beforeAll(() => {
    fx = outsideFixture('extract-links');
    outside = fx.writeOutside('exports/customers.csv', `name,email\n${marker},a@example.com\n`);
    fx.write('exports/own.csv', 'name,email\nAda,ada@example.com\n');
    fx.symlink('exports/linked.csv', outside);
    fx.symlink('exports/inside-link.csv', join(fx.workspace, 'exports/own.csv'));
    fx.hardLink('exports/hard.csv', outside);
    fx.fifo('exports/pipe.csv');
    fx.symlink('linked-exports', join(fx.outside, 'exports'));
    fx.symlink('alias', join(fx.workspace, 'exports'));
  });
  afterAll(() => fx.cleanup());

  it('reads a regular file of the workspace (the control case)', async () => {
    expect(await extract('exports/own.csv')).toMatchObject({ success: true, recordCount: 1 });
  });

  it('refuses a symbolic link to an outside file, and one to a file inside the workspace', async () => {
    for (const path of ['exports/linked.csv', 'exports/inside-link.csv']) {
      const result = await extract(path);
      expect(result).toMatchObject({ success: false, specialistContract: { status: 'refused' } });
      expectNothingOf(result, marker, fx.base);
    }
  });

  it('refuses a hard link of an outside file, reading nothing of it', async () => {
    const before = fileState(outside);
    const result = await extract('exports/hard.csv');
    expect(result).toMatchObject({ success: false, error: expect.stringContaining('exports/hard.csv is a hard link') });
    expectNothingOf(result, marker, fx.base);
    expect(fileState(outside)).toMatchObject({ content: before.content, mtimeMs: before.mtimeMs });
  });

  it('refuses a file below a linked folder, outside the workspace or inside it', async () => {
    for (const path of ['linked-exports/customers.csv', 'alias/own.csv']) {
      const result = await extract(path);
      expect(result).toMatchObject({ success: false });
      expectNothingOf(result, marker, fx.base);
    }
  });

  it('does not hang on a FIFO', async () => {
    expect(await extract('exports/pipe.csv')).toMatchObject({ success: false, error: 'exports/pipe.csv is not a regular file' });
  }, 10_000);
});
