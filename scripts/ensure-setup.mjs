#!/usr/bin/env node
// Makes a fresh clone runnable: installs the locked dependencies when they are missing or
// older than the lockfile, then compiles the TypeScript sources (service, agents, bench) into dist/.
import { execSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const run = (cmd) => execSync(cmd, { cwd: root, stdio: 'inherit' });

const lockfile = join(root, 'package-lock.json');
const installedMarker = join(root, 'node_modules', '.package-lock.json');
const needsInstall =
  !existsSync(installedMarker) || statSync(lockfile).mtimeMs > statSync(installedMarker).mtimeMs;
if (needsInstall) {
  // `npm ci` installs exactly the lockfile (and fails loudly when package.json drifted from it);
  // a checkout without a lockfile falls back to a plain install.
  run(existsSync(lockfile) ? 'npm ci --no-audit --no-fund' : 'npm install --no-audit --no-fund');
}
run('npx tsc -p tsconfig.build.json');
