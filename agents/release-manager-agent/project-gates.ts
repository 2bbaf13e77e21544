import type { ResolvedScope } from '../../src/worker-sdk/scope-path.js';
import { inspectWorkspacePath, listWorkspaceFolder, readWorkspaceText, type WorkspaceFileRefusal } from '../../src/worker-sdk/workspace-file.js';
import type { ReleaseGate } from './gate.js';
import { readJunitReports, type JunitSummary } from './junit-reports.js';

const LOCKFILES = ['package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml', 'bun.lockb'];
/** npm init's default test script, which only says there are no tests. */
const NPM_INIT_TEST_SCRIPT = /no test specified/i;
const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
const MAX_CHANGELOG_BYTES = 2 * 1024 * 1024;
/** A package.json larger than this is not a project manifest. */
const MAX_MANIFEST_BYTES = 1024 * 1024;
const CHANGELOG_NAME = /^(changelog|changes|history)(\.(md|markdown|txt|rst))?$/i;

/** A file of the scope the lane would have read or counted, and why it did not (a link, a hard link, …). */
export interface FileNotRead {
  path: string;
  reason: string;
}

export interface ProjectEvidence {
  name: string | null;
  version: string | null;
  changelog: string | null;
  lockfile: string | null;
  testScript: string | null;
  junit: JunitSummary;
  /** Project files refused by the workspace opener: never read, never counted. */
  notRead: FileNotRead[];
}

interface PackageJson {
  name?: unknown;
  version?: unknown;
  scripts?: Record<string, unknown>;
}

type PackageRead = { manifest: PackageJson } | { missing: true } | { refused: WorkspaceFileRefusal } | { error: string };

/** `name` inside the scope folder, workspace-relative. */
function inScope(scopeRelative: string, name: string): string {
  return scopeRelative === '.' ? name : `${scopeRelative}/${name}`;
}

function readPackage(workspaceRoot: string, scopeRelative: string): PackageRead {
  const read = readWorkspaceText(workspaceRoot, inScope(scopeRelative, 'package.json'), { maxBytes: MAX_MANIFEST_BYTES });
  if (!read.ok) return read.problem === 'missing' ? { missing: true } : { refused: read };
  try {
    return { manifest: JSON.parse(read.text) as PackageJson };
  } catch (err) {
    return { error: (err as Error).message };
  }
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
export function projectGates(
  scoped: ResolvedScope,
  scope: string,
  workspaceRoot: string,
): { gates: ReleaseGate[]; evidence: ProjectEvidence } {
  const gates: ReleaseGate[] = [];
  const notRead: FileNotRead[] = [];
  const refused = (refusal: WorkspaceFileRefusal) => notRead.push({ path: refusal.path, reason: refusal.reason });
  const pkg = readPackage(workspaceRoot, scoped.relative);
  const parsed = 'manifest' in pkg && typeof pkg.manifest === 'object' && pkg.manifest !== null ? pkg.manifest : null;
  const version = parsed && typeof parsed.version === 'string' && SEMVER.test(parsed.version) ? parsed.version : null;

  if ('missing' in pkg) gates.push({ gate: 'package-version', status: 'fail', evidence: `${scope}/package.json not found` });
  else if ('refused' in pkg) {
    refused(pkg.refused);
    gates.push({ gate: 'package-version', status: 'fail', evidence: `not read: ${pkg.refused.message}` });
  } else if ('error' in pkg) gates.push({ gate: 'package-version', status: 'fail', evidence: `${scope}/package.json is not valid JSON: ${pkg.error}` });
  else if (version === null) {
    gates.push({ gate: 'package-version', status: 'fail', evidence: `${scope}/package.json has no semantic version (found ${JSON.stringify(parsed?.version ?? null)})` });
  } else gates.push({ gate: 'package-version', status: 'pass', evidence: `${scope}/package.json version ${version}` });

  const listing = listWorkspaceFolder(workspaceRoot, scoped.relative);
  const entries = listing.ok ? listing.entries : [];
  const changelogEntry = entries.find((entry) => CHANGELOG_NAME.test(entry.name)) ?? null;
  let changelog: string | null = changelogEntry?.name ?? null;
  if (changelog === null) {
    gates.push({ gate: 'changelog', status: 'warn', evidence: `no CHANGELOG in ${scope}` });
  } else {
    // Read even without a version to look for: a changelog that cannot be opened is named either way.
    const read = readWorkspaceText(workspaceRoot, inScope(scoped.relative, changelog), { headBytes: MAX_CHANGELOG_BYTES });
    if (!read.ok) {
      refused(read);
      gates.push({ gate: 'changelog', status: 'warn', evidence: `not read: ${read.message}` });
      changelog = null;
    } else if (version === null) {
      gates.push({ gate: 'changelog', status: 'warn', evidence: `${scope}/${changelog} present, but there is no version to look for` });
    } else {
      gates.push(
        mentionsVersion(read.text, version)
          ? { gate: 'changelog', status: 'pass', evidence: `${scope}/${changelog} mentions ${version}` }
          : { gate: 'changelog', status: 'warn', evidence: `${scope}/${changelog} does not mention ${version}` },
      );
    }
  }

  const rawTest = parsed?.scripts?.test;
  const testScript = typeof rawTest === 'string' && rawTest.trim() !== '' ? rawTest : null;
  if (testScript === null) gates.push({ gate: 'test-script', status: 'warn', evidence: `${scope}/package.json has no test script` });
  else if (NPM_INIT_TEST_SCRIPT.test(testScript)) gates.push({ gate: 'test-script', status: 'warn', evidence: `the test script is npm init's default: ${testScript}` });
  else gates.push({ gate: 'test-script', status: 'pass', evidence: `test script: ${testScript.slice(0, 200)}` });

  // A lockfile counts only as a regular file of the scope: a link to one elsewhere says nothing about this project.
  let lockfile: string | null = null;
  for (const name of LOCKFILES) {
    if (!entries.some((entry) => entry.name === name)) continue;
    const look = inspectWorkspacePath(workspaceRoot, inScope(scoped.relative, name));
    if (look.ok && look.kind === 'file') {
      lockfile = name;
      break;
    }
    if (!look.ok) refused(look);
  }
  gates.push(
    lockfile
      ? { gate: 'lockfile', status: 'pass', evidence: `${scope}/${lockfile}` }
      : { gate: 'lockfile', status: 'warn', evidence: `no lockfile in ${scope} (${LOCKFILES.join(', ')})${notRead.some((f) => LOCKFILES.some((name) => f.path.endsWith(name))) ? '; a linked or hard-linked lockfile is not counted' : ''}` },
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
    evidence: { name: typeof parsed?.name === 'string' ? parsed.name : null, version, changelog, lockfile, testScript, junit, notRead },
  };
}
