import { existsSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildRefactor, type BuildRefactorResult } from '../../../agents/build-refactor-agent/build-refactor.js';
import { ApplyError, FileTransaction } from '../../../agents/build-refactor-agent/file-transaction.js';
import { planChanges } from '../../../agents/build-refactor-agent/plan-changes.js';
import type { BuildRefactorPayload, ChangeRequest } from '../../../agents/build-refactor-agent/read-input.js';
import { resolveScope } from '../../../agents/build-refactor-agent/scope.js';
import { expectNothingOf, fileState, outsideFixture, POSIX, uniqueMarker, type OutsideFixture } from '../../support/outside-files.js';

const MATH_JS = 'export function add(a, b) {\n  return a + b;\n}\n';

/**
 * build-refactor reads the files it changes and the project's package.json (for the verification
 * script), and writes, creates and deletes files. None of it may reach outside the workspace:
 * not through a file that is a link or a hard link, not through a linked folder above it, not
 * through a folder swapped for a link after the change set was planned, and not by running a
 * script only an outside package.json defines.
 */
describe.skipIf(!POSIX)('build-refactor and files that lead outside the workspace', () => {
  let fx: OutsideFixture;
  const marker = uniqueMarker('refactor');
  let ranProof: string;

  beforeEach(() => {
    fx = outsideFixture('build-refactor-links');
    // Inside the project: the script runs in the sandbox, where only the project is writable.
    ranProof = join(fx.workspace, 'projects/billing/script-ran');
    fx.write('projects/billing/package.json', JSON.stringify({ name: 'billing', scripts: { test: 'node -e "process.exit(0)"' } }));
    fx.write('projects/billing/src/math.js', MATH_JS);
  });
  afterEach(() => fx.cleanup());

  const run = (payload: BuildRefactorPayload): Promise<BuildRefactorResult> => buildRefactor(payload, { workspaceRoot: fx.workspace, runId: 'run-1' });
  const edit = { path: 'projects/billing/src/math.js', search: 'a + b', replace: 'b + a' };
  const outsideManifest = () => {
    const script = `node -e "require('node:fs').writeFileSync(${JSON.stringify(ranProof).replace(/"/g, "'")}, '${marker}')"`;
    return fx.writeOutside('package.json', JSON.stringify({ name: marker, scripts: { test: script } }));
  };

  describe('the package.json that names the verification script', () => {
    it('runs a script of a regular package.json of the project (the control case)', async () => {
      fx.remove('projects/billing/package.json');
      fx.write('projects/billing/package.json', readFileSync(outsideManifest(), 'utf8'));
      const result = await run({ scope: 'projects/billing', testRunner: { script: 'test' }, changes: [edit] });
      expect(result.success).toBe(true);
      expect(existsSync(ranProof)).toBe(true);
    }, 30_000);

    for (const [kind, plant] of [
      ['a symbolic link to', (outside: string) => fx.symlink('projects/billing/package.json', outside)],
      ['a hard link of', (outside: string) => fx.hardLink('projects/billing/package.json', outside)],
    ] as const) {
      it(`never runs a script defined only in an outside package.json reached as ${kind} it, and changes nothing`, async () => {
        const outside = outsideManifest();
        const before = fileState(outside);
        fx.remove('projects/billing/package.json');
        plant(outside);
        const result = await run({ scope: 'projects/billing', testRunner: { script: 'test' }, changes: [edit] });
        expect(result).toMatchObject({ success: false, filesChanged: [], verification: null });
        expect(existsSync(ranProof)).toBe(false);
        expect(readFileSync(join(fx.workspace, 'projects/billing/src/math.js'), 'utf8')).toBe(MATH_JS);
        expectNothingOf(result, marker, fx.base);
        expect(fileState(outside)).toMatchObject({ content: before.content, mtimeMs: before.mtimeMs });
      }, 30_000);
    }

    it('does not hang on a FIFO in package.json\'s place', async () => {
      fx.remove('projects/billing/package.json');
      fx.fifo('projects/billing/package.json');
      const result = await run({ scope: 'projects/billing', testRunner: { script: 'test' }, changes: [edit] });
      expect(result).toMatchObject({ success: false, filesChanged: [] });
      expect(readFileSync(join(fx.workspace, 'projects/billing/src/math.js'), 'utf8')).toBe(MATH_JS);
    }, 10_000);
  });

  describe('the files of the change set', () => {
    it('refuses to edit a file that is a symbolic link to an outside file; the outside file is unchanged', async () => {
      const outside = fx.writeOutside('secret.js', `export const key = '${marker}';\n`);
      const before = fileState(outside);
      fx.symlink('projects/billing/src/secret.js', outside);
      const result = await run({ scope: 'projects/billing', changes: [{ path: 'projects/billing/src/secret.js', search: marker, replace: 'x' }] });
      expect(result).toMatchObject({ success: false, filesChanged: [] });
      expectNothingOf(result, marker, fx.base);
      expect(fileState(outside)).toEqual(before);
    });

    it('refuses to read or edit a hard link of an outside file; the outside file is unchanged', async () => {
      const outside = fx.writeOutside('secret.js', `export const key = '${marker}';\n`);
      const before = fileState(outside);
      fx.hardLink('projects/billing/src/secret.js', outside);
      const result = await run({ scope: 'projects/billing', changes: [{ path: 'projects/billing/src/secret.js', search: marker, replace: 'x' }] });
      expect(result).toMatchObject({ success: false, filesChanged: [], error: expect.stringContaining('"projects/billing/src/secret.js" is a hard link') });
      expectNothingOf(result, marker, fx.base);
      expect(fileState(outside)).toEqual(before);
    });

    it('does not hang on a FIFO named in the change set', async () => {
      fx.fifo('projects/billing/src/pipe.js');
      const result = await run({ scope: 'projects/billing', changes: [{ path: 'projects/billing/src/pipe.js', content: 'x' }] });
      expect(result).toMatchObject({ success: false, filesChanged: [] });
    }, 10_000);

    it('refuses to write below a linked folder, outside the workspace or inside the scope', async () => {
      const outside = fx.writeOutside('lib/util.js', `export const u = '${marker}';\n`);
      const before = fileState(outside);
      fx.symlink('projects/billing/vendor', join(fx.outside, 'lib'));
      fx.symlink('projects/billing/alias', join(fx.workspace, 'projects/billing/src'));
      for (const path of ['projects/billing/vendor/util.js', 'projects/billing/vendor/new.js', 'projects/billing/alias/math.js']) {
        const result = await run({ scope: 'projects/billing', changes: [{ path, content: 'export {};\n' }] });
        expect(result).toMatchObject({ success: false, filesChanged: [] });
        expectNothingOf(result, marker, fx.base);
      }
      expect(fileState(outside)).toEqual(before);
      expect(readdirSync(join(fx.outside, 'lib'))).toEqual(['util.js']);
      expect(readFileSync(join(fx.workspace, 'projects/billing/src/math.js'), 'utf8')).toBe(MATH_JS);
    });

    it('refuses a scope that is a symbolic link, even to a folder inside the workspace', async () => {
      fx.symlink('billing-link', join(fx.workspace, 'projects/billing'));
      const result = await run({ scope: 'billing-link', changes: [{ path: 'billing-link/src/math.js', search: 'a + b', replace: 'b + a' }] });
      expect(result).toMatchObject({ success: false, filesChanged: [] });
      expect(readFileSync(join(fx.workspace, 'projects/billing/src/math.js'), 'utf8')).toBe(MATH_JS);
    });
  });

  describe('a folder swapped for a link to an outside folder after the change set was planned', () => {
    /** Plans `changes`, then puts a link to an outside copy of src/ where src/ was, then applies. */
    const planSwapApply = (changes: ChangeRequest[]) => {
      fx.write('projects/billing/src/old.js', 'export const old = 1;\n');
      fx.writeOutside('src/math.js', MATH_JS);
      fx.writeOutside('src/old.js', 'export const old = 1;\n');
      const outsideBefore = Object.fromEntries(readdirSync(join(fx.outside, 'src')).map((name) => [name, fileState(join(fx.outside, 'src', name))]));
      const scope = resolveScope(fx.workspace, 'projects/billing');
      if ('problem' in scope) throw new Error(scope.problem);
      const plan = planChanges(fx.workspace, scope, changes, 10);
      if ('problems' in plan) throw new Error(plan.problems.join('; '));
      renameSync(join(fx.workspace, 'projects/billing/src'), join(fx.workspace, 'projects/billing/src-moved'));
      fx.symlink('projects/billing/src', join(fx.outside, 'src'));
      let error: unknown = null;
      try {
        new FileTransaction(fx.workspace, plan.files).apply();
      } catch (err) {
        error = err;
      }
      return { error, outsideBefore };
    };
    const outsideNow = () => Object.fromEntries(readdirSync(join(fx.outside, 'src')).map((name) => [name, fileState(join(fx.outside, 'src', name))]));

    for (const [what, change] of [
      ['an edit', { kind: 'edit', path: 'projects/billing/src/math.js', search: 'a + b', replace: 'b + a' }],
      ['a new file', { kind: 'write', path: 'projects/billing/src/new.js', content: 'export const planted = 1;\n' }],
      ['a deletion', { kind: 'delete', path: 'projects/billing/src/old.js' }],
    ] as const) {
      it(`refuses ${what} there; the outside folder is unchanged`, () => {
        const { error, outsideBefore } = planSwapApply([change]);
        expect(error).toBeInstanceOf(ApplyError);
        expect((error as ApplyError).message).toContain('symbolic link');
        expect(outsideNow()).toEqual(outsideBefore);
      });
    }
  });
});
