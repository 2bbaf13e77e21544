import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeIndex } from '../../../agents/code-index-agent/code-index.js';

describe('code-index result paths', () => {
  let base: string;

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'code-index-paths-'));
    const lib = join(base, 'workspace', 'lib');
    mkdirSync(join(lib, 'dist'), { recursive: true });
    writeFileSync(join(lib, 'a.ts'), "import { b } from './b.js';\nimport { gone } from './gone.js';\nexport const a = b + gone;\n");
    writeFileSync(join(lib, 'b.ts'), 'export const b = 1;\n');
    writeFileSync(join(lib, 'dist', 'a.js'), 'export const a = 2;\n');
    writeFileSync(join(lib, 'huge.js'), `// ${'x'.repeat(512 * 1024)}\n`);
    symlinkSync(join(base, 'outside.ts'), join(lib, 'outside.ts'));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('names files, edges and problems workspace-relative, and passes build output by', () => {
    const result = codeIndex({ scope: 'lib' }, { workspaceRoot: join(base, 'workspace'), runId: null });
    if (!result.success) throw new Error(result.error);
    expect(result.files.map((f) => f.path)).toEqual(['lib/a.ts', 'lib/b.ts']);
    expect(result.edges).toEqual([{ from: 'lib/a.ts', to: 'lib/b.ts' }]);
    expect(result.stats.skipped).toEqual({ oversized: ['lib/huge.js'], beyondLimit: 0, symlinks: 1, hardLinks: 0 });
    expect(JSON.stringify(result)).not.toContain(base);
  });
});
