import { rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { complianceReview, type ComplianceSuccess } from '../../../agents/compliance-agent/review.js';
import { GPL3_TEXT, MIT_TEXT } from '../../support/licence-texts.js';
import { expectNothingOf, fileState, outsideFixture, POSIX, uniqueMarker, type OutsideFixture } from '../../support/outside-files.js';

const manifest = (fields: Record<string, unknown>) => JSON.stringify({ name: 'ledger', version: '1.0.0', ...fields });

/**
 * compliance-review opens LICENSE/COPYING/README/NOTICE and package.json of its scope, and
 * package.json and the licence files of every installed dependency. Each may be a link to a file
 * outside the workspace, a hard link of one, or a FIFO; a dependency's folder may be a link. None
 * is read: the review names them (notRead, check files-not-read) or refuses, and nothing of the
 * outside file reaches the result.
 */
describe.skipIf(!POSIX)('compliance-review and files that lead outside the workspace', () => {
  let fx: OutsideFixture;
  const marker = uniqueMarker('compliance');

  beforeEach(() => {
    fx = outsideFixture('compliance-links');
    fx.write('ledger/LICENSE', MIT_TEXT);
    fx.write('ledger/README.md', '# Ledger\n');
    fx.write('ledger/package.json', manifest({ license: 'MIT', dependencies: { tiny: '1.0.0' } }));
    fx.write('ledger/node_modules/tiny/package.json', manifest({ name: 'tiny', license: 'ISC' }));
  });
  afterEach(() => fx.cleanup());

  const review = () => complianceReview({ scope: 'ledger' }, { workspaceRoot: fx.workspace, runId: null });
  const success = () => {
    const result = review();
    if (!result.success) throw new Error(result.error);
    return result as ComplianceSuccess;
  };
  /** The GPL text, so a read of it would turn the licence into GPL; the marker would show up as the licence file's text. */
  const outsideLicence = () => fx.writeOutside('LICENSE', `${marker}\n${GPL3_TEXT}`);

  for (const name of ['LICENSE', 'COPYING']) {
    it(`does not read a ${name} that is a symbolic link to a file outside the workspace`, () => {
      const outside = outsideLicence();
      const before = fileState(outside);
      fx.remove('ledger/LICENSE');
      fx.symlink(`ledger/${name}`, outside);
      const result = success();
      expect(result.licence).toMatchObject({ spdx: 'MIT', identifiedByText: [], sources: ['package.json license'] });
      expect(result.notRead).toEqual([{ path: `ledger/${name}`, reason: 'is a symbolic link; links are not followed' }]);
      expect(result.checks.find((c) => c.check === 'files-not-read')).toMatchObject({ status: 'warn', evidence: expect.stringContaining(`ledger/${name}`) });
      expectNothingOf(result, marker, fx.base);
      expect(fileState(outside)).toEqual(before);
    });
  }

  it('does not read a hard-linked LICENSE, and does not hang on a FIFO in its place', () => {
    const outside = outsideLicence();
    fx.remove('ledger/LICENSE');
    fx.hardLink('ledger/LICENSE', outside);
    const linked = success();
    expect(linked.notRead).toEqual([{ path: 'ledger/LICENSE', reason: expect.stringContaining('hard link') }]);
    expect(linked.licence.identifiedByText).toEqual([]);
    expectNothingOf(linked, marker, fx.base);
    fx.remove('ledger/LICENSE');
    fx.fifo('ledger/LICENSE');
    const fifo = success();
    expect(fifo.notRead).toEqual([{ path: 'ledger/LICENSE', reason: expect.stringContaining('not a regular file') }]);
  }, 10_000);

  it('does not count a README or NOTICE that is a link to a file outside the workspace', () => {
    const readme = fx.writeOutside('README.md', `# ${marker}\n`);
    fx.remove('ledger/README.md');
    fx.symlink('ledger/README.md', readme);
    fx.symlink('ledger/NOTICE', readme);
    const result = success();
    expect(result.checks.find((c) => c.check === 'readme-present')).toMatchObject({ status: 'warn' });
    expect(result.notRead.map((f) => f.path)).toEqual(['ledger/NOTICE', 'ledger/README.md']);
    expectNothingOf(result, marker, fx.base);
  });

  it('refuses a package.json that is a symbolic link, a hard link or a FIFO, reading nothing of it', () => {
    const outside = fx.writeOutside('package.json', manifest({ name: marker, license: marker, dependencies: { [marker.toLowerCase()]: '1.0.0' } }));
    const before = fileState(outside);
    fx.remove('ledger/package.json');
    for (const [plant, words] of [
      [() => fx.symlink('ledger/package.json', outside), 'is a symbolic link'],
      [() => fx.hardLink('ledger/package.json', outside), 'is a hard link'],
      [() => fx.fifo('ledger/package.json'), 'is not a regular file'],
    ] as const) {
      plant();
      const result = review();
      expect(result).toMatchObject({ success: false, specialistContract: { status: 'refused', refusalReason: expect.stringContaining(`ledger/package.json ${words}`) } });
      expectNothingOf(result, marker, fx.base);
      fx.remove('ledger/package.json');
    }
    expect(fileState(outside)).toMatchObject({ content: before.content, mtimeMs: before.mtimeMs });
  }, 10_000);

  it('does not read node_modules/<dep>/package.json that is a link or a hard link to an outside manifest', () => {
    const outside = fx.writeOutside('dep/package.json', manifest({ name: 'tiny', version: marker, license: `${marker}-licence` }));
    for (const plant of [() => fx.symlink('ledger/node_modules/tiny/package.json', outside), () => fx.hardLink('ledger/node_modules/tiny/package.json', outside)]) {
      fx.remove('ledger/node_modules/tiny/package.json');
      plant();
      const result = success();
      expect(result.dependencies).toEqual([expect.objectContaining({ name: 'tiny', licence: null, category: 'unknown', installedVersion: null, note: expect.stringMatching(/^not read: ledger\/node_modules\/tiny\/package\.json is a (symbolic|hard) link/) })]);
      expect(result.notRead.map((f) => f.path)).toEqual(['ledger/node_modules/tiny/package.json']);
      expectNothingOf(result, marker, fx.base);
    }
  });

  it('does not enter node_modules/<dep> when it is a linked folder, outside the workspace or inside it', () => {
    fx.writeOutside('pkg/package.json', manifest({ name: 'tiny', version: marker, license: `${marker}-licence` }));
    fx.remove('ledger/node_modules/tiny/package.json');
    rmdirSync(join(fx.workspace, 'ledger/node_modules/tiny'));
    fx.symlink('ledger/node_modules/tiny', join(fx.outside, 'pkg'));
    const outsideLink = success();
    expect(outsideLink.dependencies[0]).toMatchObject({ name: 'tiny', licence: null, category: 'unknown' });
    expectNothingOf(outsideLink, marker, fx.base);

    fx.remove('ledger/node_modules/tiny');
    fx.write('vendor/tiny/package.json', manifest({ name: 'tiny', version: marker, license: 'ISC' }));
    fx.symlink('ledger/node_modules/tiny', join(fx.workspace, 'vendor/tiny'));
    const insideLink = success();
    expect(insideLink.dependencies[0]).toMatchObject({ name: 'tiny', licence: null, note: expect.stringContaining('passes through ledger/node_modules/tiny, a symbolic link') });
    expectNothingOf(insideLink, marker, fx.base);
  });

  it('does not read a dependency\'s licence file that is a link to an outside file', () => {
    const outside = outsideLicence();
    fx.write('ledger/node_modules/tiny/package.json', manifest({ name: 'tiny' }));
    fx.symlink('ledger/node_modules/tiny/LICENSE', outside);
    const result = success();
    expect(result.dependencies[0]).toMatchObject({ name: 'tiny', licence: null, category: 'unknown' });
    expect(result.notRead).toEqual([{ path: 'ledger/node_modules/tiny/LICENSE', reason: 'is a symbolic link; links are not followed' }]);
    expectNothingOf(result, marker, fx.base);
  });
});
