import type { RankableFinding } from './finding.js';
import { isEnvFile, isKeyFile } from './file-kinds.js';
import type { ScopeFile } from './scope-files.js';

const WORLD_WRITABLE = 0o002;
const GROUP_OR_OTHER_READ = 0o044;

function octal(mode: number): string {
  return (mode & 0o777).toString(8).padStart(3, '0');
}

/**
 * File modes that expose the project (the `file-permissions` family): files anyone may
 * change, and key or env files others may read. `holdsPrivateKey` names files whose content
 * showed a private key block, whatever their name. POSIX modes only; Windows has none to read.
 */
export function findPermissionProblems(files: ScopeFile[], holdsPrivateKey: ReadonlySet<string>): RankableFinding[] {
  if (process.platform === 'win32') return [];
  const findings: RankableFinding[] = [];
  for (const file of files) {
    const mode = file.mode & 0o777;
    const sensitive = isKeyFile(file.path) || holdsPrivateKey.has(file.path) ? 'private key' : isEnvFile(file.path) ? 'environment file' : null;
    if (sensitive && mode & GROUP_OR_OTHER_READ) {
      findings.push({
        family: 'file-permissions',
        rule: 'sensitive-file-readable',
        severity: sensitive === 'private key' ? 'high' : 'medium',
        file: file.path,
        line: null,
        evidence: `${sensitive} has mode ${octal(mode)}: readable by ${mode & 0o040 ? 'group' : ''}${mode & 0o040 && mode & 0o004 ? ' and ' : ''}${mode & 0o004 ? 'others' : ''} (expected 600)`,
      });
    }
    if (mode & WORLD_WRITABLE) {
      findings.push({
        family: 'file-permissions',
        rule: 'world-writable-file',
        severity: 'medium',
        file: file.path,
        line: null,
        evidence: `mode ${octal(mode)}: any local user can change this file`,
      });
    }
  }
  return findings;
}
