import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ResolvedScope } from '../../src/worker-sdk/scope-path.js';
import type { ReleaseGate } from './gate.js';
import { readJunitReports, type JunitSummary } from './junit-reports.js';

const LOCKFILES = ['package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml', 'bun.lockb'];
/** npm init's default test script, which only says there are no tests. */
const NPM_INIT_TEST_SCRIPT = /no test specified/i;
const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
const MAX_CHANGELOG_BYTES = 2 * 1024 * 1024;

export interface ProjectEvidence {
  name: string | null;
  version: string | null;
  changelog: string | null;
  lockfile: string | null;
  testScript: string | null;
  junit: JunitSummary;
}

interface PackageJson {
  name?: unknown;
  version?: unknown;
  scripts?: Record<string, unknown>;
}

async function readPackage(dir: string): Promise<PackageJson | null | { error: string }> {
  const path = join(dir, 'package.json');
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(await readFile(path, 'utf8')) as PackageJson;
  } catch (err) {
    return { error: (err as Error).message };
  }
}

async function changelogOf(dir: string): Promise<string | null> {
  const names = await readdir(dir);
  return names.find((n) => /^(changelog|changes|history)(\.(md|markdown|txt|rst))?$/i.test(n)) ?? null;
}

/** True when the changelog names the version as a version, not as part of a longer one (1.2.3 ≠ 1.2.30). */
function mentionsVersion(text: string, version: string): boolean {
  const escaped = version.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^0-9A-Za-z.])v?${escaped}(?![0-9A-Za-z]|\\.[0-9])`, 'm').test(text);
}

/**
 * Gates read from the scoped project:
 * - package-version: package.json with a semantic version, else fail;
 * - changelog: a CHANGELOG (or CHANGES/HISTORY) naming that version passes; present without it,
 *   or absent, warns;
 * - test-script: an npm `test` script that is not npm init's default passes, else warns;
 * - lockfile: a package-manager lockfile passes, else warns (installs are not reproducible);
 * - test-reports: JUnit reports under the scope with a failing or erroring case fail; all passing
 *   pass; none found warns (no test evidence is not evidence of passing).
 */
export async function projectGates(
  scoped: ResolvedScope,
  scope: string,
  workspaceRoot: string,
): Promise<{ gates: ReleaseGate[]; evidence: ProjectEvidence }> {
  const scopeDir = scoped.absolute;
  const gates: ReleaseGate[] = [];
  const pkg = await readPackage(scopeDir);
  const parsed = pkg !== null && !('error' in pkg) ? pkg : null;
  const version = parsed && typeof parsed.version === 'string' && SEMVER.test(parsed.version) ? parsed.version : null;

  if (pkg === null) gates.push({ gate: 'package-version', status: 'fail', evidence: `${scope}/package.json not found` });
  else if ('error' in pkg) gates.push({ gate: 'package-version', status: 'fail', evidence: `${scope}/package.json is not valid JSON: ${pkg.error}` });
  else if (version === null) {
    gates.push({ gate: 'package-version', status: 'fail', evidence: `${scope}/package.json has no semantic version (found ${JSON.stringify(parsed?.version ?? null)})` });
  } else gates.push({ gate: 'package-version', status: 'pass', evidence: `${scope}/package.json version ${version}` });

  const changelog = await changelogOf(scopeDir);
  if (changelog === null) {
    gates.push({ gate: 'changelog', status: 'warn', evidence: `no CHANGELOG in ${scope}` });
  } else if (version === null) {
    gates.push({ gate: 'changelog', status: 'warn', evidence: `${scope}/${changelog} present, but there is no version to look for` });
  } else {
    const text = (await readFile(join(scopeDir, changelog), 'utf8')).slice(0, MAX_CHANGELOG_BYTES);
    gates.push(
      mentionsVersion(text, version)
        ? { gate: 'changelog', status: 'pass', evidence: `${scope}/${changelog} mentions ${version}` }
        : { gate: 'changelog', status: 'warn', evidence: `${scope}/${changelog} does not mention ${version}` },
    );
  }

  const rawTest = parsed?.scripts?.test;
  const testScript = typeof rawTest === 'string' && rawTest.trim() !== '' ? rawTest : null;
  if (testScript === null) gates.push({ gate: 'test-script', status: 'warn', evidence: `${scope}/package.json has no test script` });
  else if (NPM_INIT_TEST_SCRIPT.test(testScript)) gates.push({ gate: 'test-script', status: 'warn', evidence: `the test script is npm init's default: ${testScript}` });
  else gates.push({ gate: 'test-script', status: 'pass', evidence: `test script: ${testScript.slice(0, 200)}` });

  const lockfile = LOCKFILES.find((name) => existsSync(join(scopeDir, name))) ?? null;
  gates.push(
    lockfile
      ? { gate: 'lockfile', status: 'pass', evidence: `${scope}/${lockfile}` }
      : { gate: 'lockfile', status: 'warn', evidence: `no lockfile in ${scope} (${LOCKFILES.join(', ')})` },
  );

  const junit = readJunitReports(workspaceRoot, scoped);
  const broken = junit.failures + junit.errors;
  if (junit.reports.length === 0) {
    gates.push({ gate: 'test-reports', status: 'warn', evidence: `no JUnit report under ${scope}${junit.unreadable.length ? `; ${junit.unreadable.length} unreadable` : ''}` });
  } else if (broken > 0) {
    const named = junit.failing.slice(0, 5).map((c) => `${c.className ? `${c.className} › ` : ''}${c.name}${c.message ? ` (${c.message.slice(0, 80)})` : ''}`);
    gates.push({
      gate: 'test-reports',
      status: 'fail',
      evidence: `${broken} of ${junit.tests} test cases failed in ${junit.reports.join(', ')}: ${named.join('; ')}`,
    });
  } else {
    gates.push({ gate: 'test-reports', status: 'pass', evidence: `${junit.tests} test cases, none failing, in ${junit.reports.join(', ')}` });
  }

  return {
    gates,
    evidence: { name: typeof parsed?.name === 'string' ? parsed.name : null, version, changelog, lockfile, testScript, junit },
  };
}
