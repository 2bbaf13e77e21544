import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { REPO_ROOT } from '../support/paths.js';

const SCRIPT = join(REPO_ROOT, 'scripts', 'ensure-setup.mjs');

/**
 * A checkout in miniature: installed dependencies (the marker newer than the lockfile), one
 * source file, and a stand-in `tsc` on the local bin path that counts its runs and emits nothing.
 */
function miniCheckout(): { root: string; compiles: () => number; setup: () => void } {
  const root = tempDir('ensure-setup-');
  mkdirSync(join(root, 'scripts'));
  copyFileSync(SCRIPT, join(root, 'scripts', 'ensure-setup.mjs'));
  writeFileSync(join(root, 'package.json'), '{"type":"module"}');
  writeFileSync(join(root, 'package-lock.json'), '{}');
  writeFileSync(join(root, 'tsconfig.json'), '{}');
  writeFileSync(join(root, 'tsconfig.build.json'), '{}');
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src', 'main.ts'), 'export {};\n');
  mkdirSync(join(root, 'node_modules', '.bin'), { recursive: true });
  const past = new Date(Date.now() - 60_000);
  for (const file of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'src/main.ts', 'src']) {
    utimesSync(join(root, file), past, past);
  }
  writeFileSync(join(root, 'node_modules', '.package-lock.json'), '{}');
  const counter = join(root, 'tsc-runs');
  const tsc = join(root, 'node_modules', '.bin', 'tsc');
  writeFileSync(tsc, `#!/bin/sh\nmkdir -p "${join(root, 'dist')}"\necho x >> "${counter}"\n`);
  chmodSync(tsc, 0o755);
  return {
    root,
    compiles: () => (existsSync(counter) ? readFileSync(counter, 'utf8').trim().split('\n').length : 0),
    setup: () => {
      execFileSync(process.execPath, [join(root, 'scripts', 'ensure-setup.mjs')], {
        cwd: root,
        env: { PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`, HOME: root, npm_config_offline: 'true' },
        stdio: 'pipe',
      });
    },
  };
}

describe('the set-up step of npm start', () => {
  it('compiles a fresh checkout, then not again until a source changes', () => {
    const checkout = miniCheckout();
    checkout.setup();
    expect(checkout.compiles()).toBe(1);
    expect(existsSync(join(checkout.root, 'dist', '.build-stamp'))).toBe(true);

    checkout.setup();
    expect(checkout.compiles()).toBe(1);

    const later = new Date(Date.now() + 5_000);
    utimesSync(join(checkout.root, 'src', 'main.ts'), later, later);
    checkout.setup();
    expect(checkout.compiles()).toBe(2);
  });

  it('compiles again when a source is added or removed', () => {
    const checkout = miniCheckout();
    checkout.setup();
    const later = new Date(Date.now() + 5_000);
    writeFileSync(join(checkout.root, 'src', 'extra.ts'), 'export {};\n');
    utimesSync(join(checkout.root, 'src'), later, later);
    checkout.setup();
    expect(checkout.compiles()).toBe(2);
  });
});
