import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testIntelligence } from '../../../agents/test-intelligence-agent/intelligence.js';
import { expectNothingOf, outsideFixture, POSIX, uniqueMarker, type OutsideFixture } from '../../support/outside-files.js';

const PASSING = '<testsuite name="unit" tests="1"><testcase classname="math" name="adds"/></testsuite>';

/**
 * test-intelligence reads the reports its payload names, or those its walk finds. A report that
 * is a hard link of a file outside the workspace, a link, or a FIFO is not read: the run names
 * it as unreadable, and nothing of the outside report reaches the result.
 */
describe.skipIf(!POSIX)('test-intelligence and reports that lead outside the workspace', () => {
  let fx: OutsideFixture;
  const marker = uniqueMarker('reports');
  const run = (scope: string, reports?: string[]) =>
    testIntelligence({ scope, ...(reports ? { reports } : {}) }, { workspaceRoot: fx.workspace, runId: null }) as Promise<Record<string, any>>;

  beforeAll(() => {
    fx = outsideFixture('intel-links');
    const outside = fx.writeOutside('junit.xml', `<testsuite name="s"><testcase classname="c" name="${marker}"><failure message="${marker}"/></testcase></testsuite>`);
    fx.write('app/reports/junit-own.xml', PASSING);
    fx.hardLink('app/reports/junit-hard.xml', outside);
    fx.symlink('app/reports/junit-linked.xml', outside);
    fx.fifo('app/reports/junit-pipe.xml');
  });
  afterAll(() => fx.cleanup());

  it('reads the project\'s own report and names the hard-linked one unread when it walks the scope', async () => {
    const result = await run('app');
    expect(result.success).toBe(true);
    expect(result.reports).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'app/reports/junit-own.xml' }),
        expect.objectContaining({ path: 'app/reports/junit-hard.xml', error: expect.stringContaining('hard link') }),
      ]),
    );
    expect(result.totals).toMatchObject({ tests: 1, failures: 0 });
    expectNothingOf(result, marker, fx.base);
  });

  it('refuses a named report that is a hard link, a symbolic link or a FIFO', async () => {
    for (const report of ['app/reports/junit-hard.xml', 'app/reports/junit-linked.xml', 'app/reports/junit-pipe.xml']) {
      const result = await run('app', [report]);
      expect(result.success).toBe(false);
      expectNothingOf(result, marker, fx.base);
    }
  }, 10_000);
});
