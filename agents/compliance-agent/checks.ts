import type { DependencyLicence } from './dependencies.js';
import type { LicenceCategory } from './licence-kinds.js';
import type { FileNotRead } from './project-files.js';

export type CheckStatus = 'pass' | 'warn' | 'fail' | 'not-applicable';

export interface ComplianceCheck {
  check: string;
  status: CheckStatus;
  evidence: string;
}

/** The project's own licence as the review established it. */
export interface ProjectLicence {
  /** SPDX id or expression; null when the project declares none. */
  spdx: string | null;
  category: LicenceCategory;
  /** Where it was read: `LICENSE (text)`, `package.json license`. */
  sources: string[];
  /** Licence files present whose text matched no known licence. */
  unidentifiedFiles: string[];
  /** The package.json `license` value, when there is one, for the consistency check. */
  declared: string | null;
  /** The SPDX ids the licence files' texts identified. */
  identifiedByText: string[];
  private: boolean;
}

const list = (deps: DependencyLicence[]) => deps.map((d) => `${d.name} (${d.licence ?? 'unknown'}${d.section === 'devDependencies' ? ', dev' : ''})`).join(', ');

export function licenceChecks(licence: ProjectLicence): ComplianceCheck[] {
  const checks: ComplianceCheck[] = [];
  if (licence.spdx === null) {
    checks.push({
      check: 'licence-present',
      // A private package is not redistributed, so a missing licence is a gap to watch, not a stop.
      status: licence.private ? 'warn' : 'fail',
      evidence:
        licence.unidentifiedFiles.length > 0
          ? `licence file ${licence.unidentifiedFiles.join(', ')} matches no known licence text and package.json names no license`
          : `no LICENSE/COPYING file and no package.json license field${licence.private ? ' (package is private)' : ''}`,
    });
  } else {
    checks.push({ check: 'licence-present', status: 'pass', evidence: `${licence.spdx} from ${licence.sources.join(' and ')}` });
  }
  if (licence.declared !== null && licence.identifiedByText.length > 0) {
    const agrees = licence.identifiedByText.some((id) => licence.declared!.includes(id.replace(/-(?:only|or-later)$/, '')));
    checks.push({
      check: 'licence-consistent',
      status: agrees ? 'pass' : 'warn',
      evidence: agrees
        ? `package.json license ${licence.declared} agrees with the licence file`
        : `package.json says ${licence.declared} but the licence file reads as ${licence.identifiedByText.join(', ')}`,
    });
  }
  if (licence.unidentifiedFiles.length > 0 && licence.spdx !== null) {
    checks.push({ check: 'licence-text-identified', status: 'warn', evidence: `${licence.unidentifiedFiles.join(', ')}: text matches no known licence; read it` });
  }
  return checks;
}

export function dependencyChecks(project: ProjectLicence, dependencies: DependencyLicence[], noticeFile: string | null, beyondLimit: number): ComplianceCheck[] {
  const checks: ComplianceCheck[] = [];
  const unknown = dependencies.filter((d) => d.category === 'unknown');
  checks.push({
    check: 'dependency-licences-known',
    status: dependencies.length === 0 ? 'not-applicable' : unknown.length === 0 && beyondLimit === 0 ? 'pass' : 'warn',
    evidence:
      dependencies.length === 0
        ? 'no declared dependencies'
        : unknown.length === 0
          ? `all ${dependencies.length} declared dependencies have a known licence`
          : `${unknown.length} of ${dependencies.length} unknown: ${unknown.slice(0, 20).map((d) => `${d.name} (${d.note})`).join('; ')}${beyondLimit ? `; ${beyondLimit} more not looked up` : ''}`,
  });

  // Copyleft binds what is distributed; in a copyleft project it is expected.
  const permissiveProject = project.category === 'permissive' || project.category === 'proprietary' || project.category === 'unknown';
  const runtime = dependencies.filter((d) => d.section !== 'devDependencies');
  const strong = runtime.filter((d) => d.category === 'strong-copyleft');
  const weak = runtime.filter((d) => d.category === 'weak-copyleft');
  const devCopyleft = dependencies.filter((d) => d.section === 'devDependencies' && (d.category === 'strong-copyleft' || d.category === 'weak-copyleft'));
  if (!permissiveProject) {
    checks.push({ check: 'copyleft-dependencies', status: 'pass', evidence: `project is ${project.spdx} (copyleft); copyleft dependencies are compatible in kind` });
  } else if (strong.length > 0) {
    checks.push({
      check: 'copyleft-dependencies',
      status: 'fail',
      evidence: `strong copyleft in a ${project.spdx ?? 'unlicensed'} project: ${list(strong)}; distributing them with it would put the project under their terms`,
    });
  } else if (weak.length > 0 || devCopyleft.length > 0) {
    checks.push({
      check: 'copyleft-dependencies',
      status: 'warn',
      evidence: [weak.length ? `weak copyleft (keep their files under their licence): ${list(weak)}` : '', devCopyleft.length ? `copyleft dev dependencies (not shipped): ${list(devCopyleft)}` : '']
        .filter(Boolean)
        .join('; '),
    });
  } else {
    checks.push({ check: 'copyleft-dependencies', status: dependencies.length ? 'pass' : 'not-applicable', evidence: dependencies.length ? 'no copyleft licence among dependencies with a known licence' : 'no declared dependencies' });
  }

  const proprietary = runtime.filter((d) => d.category === 'proprietary');
  if (proprietary.length > 0) {
    checks.push({ check: 'proprietary-dependencies', status: 'warn', evidence: `licensed by their own terms: ${list(proprietary)}; check the agreement covers this use` });
  }

  const apache = runtime.filter((d) => /Apache-2\.0/i.test(d.licence ?? ''));
  checks.push(
    apache.length === 0
      ? { check: 'notice-file', status: 'not-applicable', evidence: 'no Apache-2.0 runtime dependency' }
      : noticeFile
        ? { check: 'notice-file', status: 'pass', evidence: `${noticeFile} present for Apache-2.0 dependencies: ${list(apache)}` }
        : { check: 'notice-file', status: 'warn', evidence: `no NOTICE file, but Apache-2.0 dependencies (${list(apache)}) require their NOTICE texts to be passed on` },
  );
  return checks;
}

export function readmeCheck(readme: string | null): ComplianceCheck {
  return readme ? { check: 'readme-present', status: 'pass', evidence: `${readme} present` } : { check: 'readme-present', status: 'warn', evidence: 'no README at the top of the scope' };
}

/**
 * Files the review would have read that are symbolic links, hard links or not regular files: never
 * read (their contents may come from outside the workspace), so the review is incomplete. No
 * check when there are none.
 */
export function notReadCheck(notRead: FileNotRead[]): ComplianceCheck[] {
  if (notRead.length === 0) return [];
  return [
    {
      check: 'files-not-read',
      status: 'warn',
      evidence: `${notRead.length} file${notRead.length === 1 ? '' : 's'} not read: ${notRead.slice(0, 20).map((f) => `${f.path} (${f.reason})`).join('; ')}${notRead.length > 20 ? `; ${notRead.length - 20} more` : ''}`,
    },
  ];
}
