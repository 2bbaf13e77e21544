import { basename } from 'node:path';
import type { RankableFinding, Severity } from './finding.js';
import { redactLine } from './secret-rules.js';

const DEPENDENCY_SECTIONS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'] as const;
/** npm runs these on every install, before anyone reviews what they do. */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'] as const;

interface SpecVerdict {
  rule: string;
  severity: Severity;
  why: string;
}

/** What is risky about a version specifier, or null when it pins a registry range. */
export function judgeVersionSpec(spec: string): SpecVerdict | null {
  const value = spec.trim();
  if (value === '' || value === '*' || value === 'x' || value === 'latest' || value === 'next') {
    return { rule: 'dependency-unpinned', severity: 'medium', why: 'any future release installs, including a compromised one' };
  }
  if (/^http:\/\//i.test(value) || /^git:\/\//i.test(value)) {
    return { rule: 'dependency-insecure-url', severity: 'high', why: 'fetched over an unencrypted connection' };
  }
  if (/^(?:git\+|git@|github:|gitlab:|bitbucket:|gist:)/i.test(value) || /^[\w.-]+\/[\w.-]+(?:#.*)?$/.test(value)) {
    return { rule: 'dependency-git-source', severity: 'medium', why: 'installed from a repository, outside registry integrity checks' };
  }
  if (/^https:\/\//i.test(value)) {
    return { rule: 'dependency-url-source', severity: 'medium', why: 'installed from a URL, outside registry integrity checks' };
  }
  if (/^(?:file|link):/i.test(value)) {
    return { rule: 'dependency-local-path', severity: 'low', why: 'installed from a local path that may differ between machines' };
  }
  return null;
}

/** 1-based line of the first `"key":` after the line where `"section":` opens, or of the key anywhere. */
function lineOfKey(lines: string[], section: string, key: string): number | null {
  const keyPattern = new RegExp(`^\\s*"${key.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}"\\s*:`);
  const start = lines.findIndex((line) => new RegExp(`"${section}"\\s*:`).test(line));
  for (let i = Math.max(0, start); i < lines.length; i += 1) if (keyPattern.test(lines[i]!)) return i + 1;
  return null;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * Risky declarations in a package.json (the `dependency-declarations` family): unpinned, git,
 * URL and local-path versions, and install-time scripts. A manifest that does not parse is a
 * finding of its own, since npm would refuse it too.
 */
export function findRiskyDependencies(file: string, text: string): RankableFinding[] {
  if (basename(file) !== 'package.json') return [];
  let manifest: Record<string, unknown>;
  try {
    manifest = record(JSON.parse(text));
  } catch (err) {
    return [{ family: 'dependency-declarations', rule: 'manifest-unparseable', severity: 'low', file, line: null, evidence: `package.json does not parse: ${(err as Error).message}` }];
  }
  const lines = text.split(/\r?\n/);
  const findings: RankableFinding[] = [];
  for (const section of DEPENDENCY_SECTIONS) {
    for (const [name, spec] of Object.entries(record(manifest[section]))) {
      if (typeof spec !== 'string') continue;
      const verdict = judgeVersionSpec(spec);
      if (!verdict) continue;
      findings.push({
        family: 'dependency-declarations',
        rule: verdict.rule,
        severity: verdict.severity,
        file,
        line: lineOfKey(lines, section, name),
        evidence: redactLine(`${section}.${name} = "${spec}" (${verdict.why})`),
      });
    }
  }
  const scripts = record(manifest.scripts);
  for (const hook of INSTALL_SCRIPTS) {
    const command = scripts[hook];
    if (typeof command !== 'string') continue;
    // A hook that downloads and runs something is a supply-chain door of its own.
    const fetchesCode = /\b(?:curl|wget)\b|\|\s*(?:ba)?sh\b|\bnode\s+-e\b/.test(command);
    findings.push({
      family: 'dependency-declarations',
      rule: 'install-script',
      severity: fetchesCode ? 'high' : 'medium',
      file,
      line: lineOfKey(lines, 'scripts', hook),
      evidence: redactLine(`scripts.${hook} = "${command.slice(0, 120)}" (runs on every npm install${fetchesCode ? ' and fetches or evaluates code' : ''})`),
    });
  }
  return findings;
}
