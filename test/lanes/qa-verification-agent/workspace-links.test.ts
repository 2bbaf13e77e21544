import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { QaPayload } from '../../../agents/qa-verification-agent/read-input.js';
import { qaVerification } from '../../../agents/qa-verification-agent/verify.js';
import { expectNothingOf, fileState, outsideFixture, POSIX, uniqueMarker, type OutsideFixture } from '../../support/outside-files.js';

/**
 * qa-verification reads its target's package.json to decide which script to run. A package.json
 * that is a link to one outside the workspace (or a hard link of one, or a FIFO) is refused
 * unread: no script it defines is planned, and none is ever run.
 */
describe.skipIf(!POSIX)('qa-verification and a package.json that leads outside the workspace', () => {
  let fx: OutsideFixture;
  const marker = uniqueMarker('qa');
  /** The file the outside script would write: its existence proves the script ran. */
  let ranProof: string;
  let outsideManifest: string;

  beforeEach(() => {
    fx = outsideFixture('qa-links');
    // Inside the project: the script runs in the sandbox, where only the project is writable.
    ranProof = join(fx.workspace, 'services/cart/script-ran');
    const script = `node -e "require('node:fs').writeFileSync(${JSON.stringify(ranProof).replace(/"/g, "'")}, '${marker}'); console.log('ok 1 - ${marker}\\n1..1\\n# pass 1\\n# fail 0')"`;
    outsideManifest = fx.writeOutside('package.json', JSON.stringify({ name: `${marker}-name`, scripts: { test: script, [`test:${'full'}`]: script } }));
    fx.write('services/cart/test/placeholder.txt', 'the project folder, with no package.json of its own\n');
  });
  afterEach(() => fx.cleanup());

  const lane = async (payload: QaPayload): Promise<Record<string, any>> => qaVerification(payload, { workspaceRoot: fx.workspace, runId: 'unit' });

  for (const [kind, plant] of [
    ['a symbolic link to', () => fx.symlink('services/cart/package.json', outsideManifest)],
    ['a hard link of', () => fx.hardLink('services/cart/package.json', outsideManifest)],
  ] as const) {
    it(`plans nothing from a package.json that is ${kind} an outside file (dry-run)`, async () => {
      plant();
      const before = fileState(outsideManifest);
      const result = await lane({ target: 'services/cart', mode: 'dry-run' });
      expect(result).toMatchObject({ success: false, specialistContract: { status: 'refused', refusalReason: expect.stringContaining('services/cart/package.json is a') } });
      expect(result).not.toHaveProperty('plan');
      expectNothingOf(result, marker, fx.base);
      expect(fileState(outsideManifest)).toMatchObject({ content: before.content, mtimeMs: before.mtimeMs });
    });

    it(`never runs a script defined only in an outside package.json reached as ${kind} it (execute)`, async () => {
      plant();
      const result = await lane({ target: 'services/cart', mode: 'execute', timeoutMs: 20_000 });
      expect(result).toMatchObject({ success: false, specialistContract: { status: 'refused' } });
      expect(existsSync(ranProof)).toBe(false);
      expectNothingOf(result, marker, fx.base);
    }, 30_000);
  }

  it('runs the same script when the package.json is a regular file of the project (the control case)', async () => {
    copyFileSync(outsideManifest, join(fx.workspace, 'services/cart/package.json'));
    const result = await lane({ target: 'services/cart', mode: 'execute', timeoutMs: 20_000 });
    expect(result).toMatchObject({ success: true, verdict: 'passed' });
    expect(existsSync(ranProof)).toBe(true);
  }, 30_000);

  it('refuses a target that is a linked folder outside the workspace, and runs nothing', async () => {
    fx.symlink('services/linked', fx.outside);
    const result = await lane({ target: 'services/linked', mode: 'execute', timeoutMs: 20_000 });
    expect(result).toMatchObject({ success: false, specialistContract: { status: 'refused', refusalReason: expect.stringContaining('symbolic link') } });
    expect(existsSync(ranProof)).toBe(false);
    expectNothingOf(result, marker, fx.base);
  }, 30_000);

  it('does not hang on a FIFO in package.json\'s place', async () => {
    fx.fifo('services/cart/package.json');
    const result = await lane({ target: 'services/cart', mode: 'execute', timeoutMs: 20_000 });
    expect(result).toMatchObject({ success: false, specialistContract: { status: 'refused' } });
    expect(existsSync(ranProof)).toBe(false);
  }, 10_000);
});
