#!/usr/bin/env node
// The `orch` command line (`npx orch ...` from a clone). It runs the compiled build; a clone
// that was never built is built first, the same way `npm start` and `npm test` do it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/src/orch-bin.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  const setup = fileURLToPath(new URL('../scripts/ensure-setup.mjs', import.meta.url));
  const built = spawnSync(process.execPath, [setup], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (built.status !== 0) {
    process.stderr.write('orch: the build failed; run npm run build to see why\n');
    process.exit(1);
  }
}
await import(entry.href);
