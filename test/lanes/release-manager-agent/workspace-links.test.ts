import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { releaseReadiness } from '../../../agents/release-manager-agent/release-readiness.js';
import { quietSnapshot, withSnapshot } from '../../support/control-plane-snapshot.js';
import { expectNothingOf, fileState, outsideFixture, POSIX, uniqueMarker, type OutsideFixture } from '../../support/outside-files.js';

const JUNIT = '<testsuite name="unit" tests="1"><testcase classname="math" name="adds"/></testsuite>';

/**
 * release-readiness opens package.json, the CHANGELOG, the lockfile and the JUnit reports of its
 * scope. Each of them may be a link to a file outside the workspace, a hard link of one, or a
 * FIFO: none is read, the run says so, and nothing of the outside file reaches the result.
 */
describe.skipIf(!POSIX)('release-readiness and files that lead outside the workspace', () => {
  let fx: OutsideFixture;
  const marker = uniqueMarker('release');

  beforeEach(() => {
    fx = outsideFixture('release-links');
    fx.write('app/package.json', JSON.stringify({ name: 'orders-api', version: '1.4.0', scripts: { test: 'vitest run' } }));
    fx.write('app/CHANGELOG.md', '## 1.4.0\n- Orders can be cancelled.\n');
    fx.write('app/package-lock.json', '{}');
    fx.write('app/reports/junit.xml', JUNIT);
  });
  afterEach(() => fx.cleanup());

  const run = async () => {
    const result = await releaseReadiness(withSnapshot(quietSnapshot(), { scope: 'app' }), { workspaceRoot: fx.workspace, runId: 'r' });
    if (!result.success) throw new Error(result.error);
    return result;
  };
  const gate = (result: Awaited<ReturnType<typeof run>>, name: string) => result.gates.find((g) => g.gate === name)!;
  /** An outside package.json whose every field carries the marker. */
  const outsideManifest = () =>
    fx.writeOutside('package.json', JSON.stringify({ name: `${marker}-name`, version: '9.9.9', license: marker, scripts: { test: `echo ${marker}` } }));

  it('refuses a package.json that is a symbolic link to a file outside the workspace', async () => {
    const outside = outsideManifest();
    const before = fileState(outside);
    fx.remove('app/package.json');
    fx.symlink('app/package.json', outside);
    const result = await run();
    expect(gate(result, 'package-version')).toMatchObject({ status: 'fail', evidence: expect.stringContaining('app/package.json is a symbolic link') });
    expect(result.posture).toBe('block');
    expect(result.project).toMatchObject({ name: null, version: null, testScript: null });
    expectNothingOf(result, marker, fx.base);
    expect(fileState(outside)).toEqual(before);
  });

  it('refuses a package.json that is a hard link of a file outside the workspace', async () => {
    const outside = outsideManifest();
    const before = fileState(outside);
    fx.remove('app/package.json');
    fx.hardLink('app/package.json', outside);
    const result = await run();
    expect(gate(result, 'package-version')).toMatchObject({ status: 'fail', evidence: expect.stringContaining('app/package.json is a hard link') });
    expectNothingOf(result, marker, fx.base);
    expect(fileState(outside)).toMatchObject({ content: before.content, mtimeMs: before.mtimeMs });
  });

  it('does not hang on a FIFO in package.json\'s place', async () => {
    fx.remove('app/package.json');
    fx.fifo('app/package.json');
    const result = await run();
    expect(gate(result, 'package-version')).toMatchObject({ status: 'fail', evidence: expect.stringContaining('app/package.json is not a regular file') });
  }, 10_000);

  it('refuses a CHANGELOG that is a symbolic link or a hard link to an outside file, and does not hang on a FIFO', async () => {
    const outside = fx.writeOutside('CHANGELOG.md', `## 1.4.0\n${marker}\n`);
    const before = fileState(outside);
    fx.remove('app/CHANGELOG.md');
    for (const plant of [() => fx.symlink('app/CHANGELOG.md', outside), () => fx.hardLink('app/CHANGELOG.md', outside), () => fx.fifo('app/CHANGELOG.md')]) {
      plant();
      const result = await run();
      expect(gate(result, 'changelog')).toMatchObject({ status: 'warn', evidence: expect.stringMatching(/^not read: app\/CHANGELOG\.md (is a symbolic link|is a hard link|is not a regular file)/) });
      expect(result.project!.changelog).toBeNull();
      expectNothingOf(result, marker, fx.base);
      fx.remove('app/CHANGELOG.md');
    }
    expect(fileState(outside)).toMatchObject({ content: before.content, mtimeMs: before.mtimeMs });
  }, 15_000);

  it('does not count a lockfile that is a link to one outside the workspace', async () => {
    const outside = fx.writeOutside('package-lock.json', `{"marker":"${marker}"}`);
    fx.remove('app/package-lock.json');
    fx.symlink('app/package-lock.json', outside);
    const result = await run();
    expect(gate(result, 'lockfile')).toMatchObject({ status: 'warn' });
    expect(result.project!.lockfile).toBeNull();
    expectNothingOf(result, marker, fx.base);
  });

  it('refuses a scope that is a linked folder outside the workspace', async () => {
    const outside = outsideManifest();
    fx.symlink('linked', fx.outside);
    const result = await releaseReadiness(withSnapshot(quietSnapshot(), { scope: 'linked' }), { workspaceRoot: fx.workspace, runId: 'r' });
    expect(result).toMatchObject({ success: false, specialistContract: { status: 'refused', refusalReason: expect.stringContaining('symbolic link') } });
    expectNothingOf(result, marker, fx.base);
    expect(fileState(outside).content).toContain(marker);
  });

  it('names a hard-linked JUnit report as unreadable instead of reading it', async () => {
    const outside = fx.writeOutside('junit-outside.xml', `<testsuite name="s"><testcase classname="c" name="n"><failure message="${marker}"/></testcase></testsuite>`);
    fx.hardLink('app/reports/junit-linked.xml', outside);
    const result = await run();
    expect(result.project!.junit.unreadable).toEqual([{ report: 'app/reports/junit-linked.xml', reason: expect.stringContaining('hard link') }]);
    expect(result.project!.junit.reports).toEqual(['app/reports/junit.xml']);
    expectNothingOf(result, marker, fx.base);
  });
});
