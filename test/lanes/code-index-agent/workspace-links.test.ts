import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codeIndex } from '../../../agents/code-index-agent/code-index.js';
import { expectNothingOf, fileState, outsideFixture, POSIX, uniqueMarker, type OutsideFixture } from '../../support/outside-files.js';

/**
 * code-index reads a folder's package.json for its `main` when an import names the folder
 * (`import '../pkg'`). A package.json that is a link to one outside the workspace, a hard link of
 * one or a FIFO is not read, so its `main` (here naming a file whose name carries the marker)
 * never decides what the import resolves to; a linked package folder is not entered.
 */
describe.skipIf(!POSIX)('code-index and a package.json that leads outside the workspace', () => {
  let fx: OutsideFixture;
  const marker = uniqueMarker('codeindex');
  let outsideManifest: string;

  beforeEach(() => {
    fx = outsideFixture('code-index-links');
    fx.write('lib/src/a.ts', "import pkg from '../pkg';\nexport const a = pkg;\n");
    // Outside the scope (lib/src), inside the workspace: only the outside manifest names it.
    fx.write(`lib/pkg/main-${marker}.js`, 'module.exports = 1;\n');
    outsideManifest = fx.writeOutside('pkg/package.json', JSON.stringify({ name: 'pkg', main: `main-${marker}.js` }));
  });
  afterEach(() => fx.cleanup());

  const index = () => {
    const result = codeIndex({ scope: 'lib/src' }, { workspaceRoot: fx.workspace, runId: null });
    if (!result.success) throw new Error(result.error);
    return result;
  };

  it('resolves the folder import through a regular package.json of the project (the control case)', () => {
    fx.write('lib/pkg/package.json', JSON.stringify({ name: 'pkg', main: 'main.js' }));
    fx.write('lib/pkg/main.js', 'module.exports = 1;\n');
    expect(index().files[0]!.imports[0]).toMatchObject({ specifier: '../pkg', resolved: 'lib/pkg/main.js' });
  });

  for (const [kind, plant] of [
    ['a symbolic link to', () => fx.symlink('lib/pkg/package.json', outsideManifest)],
    ['a hard link of', () => fx.hardLink('lib/pkg/package.json', outsideManifest)],
  ] as const) {
    it(`does not read a package.json that is ${kind} an outside manifest`, () => {
      plant();
      const before = fileState(outsideManifest);
      const result = index();
      expect(result.files[0]!.imports[0]).toMatchObject({ specifier: '../pkg', resolved: null });
      expectNothingOf(result, marker, fx.base);
      expect(fileState(outsideManifest)).toMatchObject({ content: before.content, mtimeMs: before.mtimeMs });
    });
  }

  it('does not hang on a FIFO in package.json\'s place', () => {
    fx.fifo('lib/pkg/package.json');
    const result = index();
    expect(result.files[0]!.imports[0]).toMatchObject({ resolved: null });
    expectNothingOf(result, marker, fx.base);
  }, 10_000);

  it('does not enter a package folder that is a link, outside the workspace or inside it', () => {
    fx.writeOutside(`pkg/main-${marker}.js`, 'module.exports = 1;\n');
    fx.write('lib/src/b.ts', "import other from '../other';\nexport const b = other;\n");
    fx.symlink('lib/other', join(fx.outside, 'pkg'));
    const result = index();
    const b = result.files.find((f) => f.path === 'lib/src/b.ts')!;
    expect(b.imports[0]).toMatchObject({ specifier: '../other', resolved: null });
    expectNothingOf(result, marker, fx.base);
  });
});
