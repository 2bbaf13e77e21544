#!/usr/bin/env node
// Makes a fresh clone runnable: installs the locked dependencies when they are missing or
// older than the lockfile, compiles the TypeScript sources (service and agents) into dist/ and
// builds the operator console into console/dist/, each only when its build is missing or stale.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
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
// Newest change under a path: a file's mtime, or for a folder the newest of itself (an entry
// added, renamed or removed changes it) and everything in it.
const newestMtime = (path) => {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, name) => Math.max(newest, newestMtime(join(path, name))), stat.mtimeMs);
};

// The service build is stale when any of its sources or build settings is newer than the stamp
// written after the last successful compile (a clone, a pull or an edit all make it so);
// otherwise `npm start` starts at once instead of spending seconds in tsc.
const buildStamp = join(root, 'dist', '.build-stamp');
const buildInputs = ['src', 'agents', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json']
  .map((name) => join(root, name))
  .filter((path) => existsSync(path));
const needsBuild = !existsSync(buildStamp) || Math.max(...buildInputs.map(newestMtime)) > statSync(buildStamp).mtimeMs;
if (needsBuild) {
  // The stamp carries the time the compile started: a source saved during it is newer still.
  const startedAt = new Date();
  run('npx tsc -p tsconfig.build.json');
  writeFileSync(buildStamp, `${startedAt.toISOString()}\n`);
  utimesSync(buildStamp, startedAt, startedAt);
}

// The console build is stale when any of its sources (console/src, index.html, vite.config.ts)
// is newer than the built index.html; Vite rewrites the whole of console/dist each time.
const consoleDir = join(root, 'console');
if (existsSync(join(consoleDir, 'src'))) {
  const builtIndex = join(consoleDir, 'dist', 'index.html');
  const sources = ['src', 'index.html', 'vite.config.ts'].map((name) => join(consoleDir, name)).filter((path) => existsSync(path));
  const needsConsoleBuild =
    !existsSync(builtIndex) || Math.max(...sources.map(newestMtime)) > statSync(builtIndex).mtimeMs;
  if (needsConsoleBuild) run('npx vite build --config console/vite.config.ts');
}
