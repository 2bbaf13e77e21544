import type { Finding, RankableFinding, RuleFamily, Severity } from './finding.js';
import { isDeployedConfig, isNonProductionPath } from './file-kinds.js';

export interface RankedFinding extends Finding {
  rank: number;
  score: number;
  /** The factors that produced the score, in words. */
  factors: string[];
}

const SEVERITY_POINTS: Record<Severity, number> = { critical: 40, high: 30, medium: 15, low: 5 };
/**
 * A committed secret is usable by anyone who can read the repository, with no further bug
 * needed; a dangerous call still needs an attacker to reach it; a dependency declaration
 * needs a compromised upstream; a file mode needs local access.
 */
const FAMILY_POINTS: Record<RuleFamily, number> = {
  'secret-patterns': 30,
  'secret-entropy': 20,
  'dangerous-code': 15,
  'file-permissions': 10,
  'dependency-declarations': 5,
};
const FAMILY_WORDS: Record<RuleFamily, string> = {
  'secret-patterns': 'committed secret: usable by anyone who reads the repository',
  'secret-entropy': 'random value assigned in a file: likely a credential',
  'dangerous-code': 'dangerous code: exploitable when an attacker reaches it',
  'file-permissions': 'file mode: exploitable by local users',
  'dependency-declarations': 'dependency declaration: exploitable through a compromised upstream',
};

/** How findings are ordered, for the result's `rankingBasis`. */
export const RANKING_BASIS = [
  `severity: critical ${SEVERITY_POINTS.critical}, high ${SEVERITY_POINTS.high}, medium ${SEVERITY_POINTS.medium}, low ${SEVERITY_POINTS.low} points`,
  `kind: committed secret ${FAMILY_POINTS['secret-patterns']}, random-looking value ${FAMILY_POINTS['secret-entropy']}, dangerous code ${FAMILY_POINTS['dangerous-code']}, file mode ${FAMILY_POINTS['file-permissions']}, dependency declaration ${FAMILY_POINTS['dependency-declarations']}`,
  'exposure: +15 for a secret in a deployed config file (.env, .npmrc, YAML/TOML/INI config, Dockerfile, config/), +15 for dangerous code with request/argv/message input within 3 lines, -20 for tests, fixtures, examples and docs',
  'ties: file path, then line',
];

function scoreOf(finding: RankableFinding): { score: number; factors: string[] } {
  const factors = [`${finding.severity} severity`, FAMILY_WORDS[finding.family]];
  let score = SEVERITY_POINTS[finding.severity] + FAMILY_POINTS[finding.family];
  const secret = finding.family === 'secret-patterns' || finding.family === 'secret-entropy';
  if (secret && isDeployedConfig(finding.file)) {
    score += 15;
    factors.push('in a deployed config file');
  }
  if (finding.nearInput) {
    score += 15;
    factors.push('reachable from input read nearby');
  }
  if (isNonProductionPath(finding.file)) {
    score -= 20;
    factors.push('in a test, fixture, example or doc path');
  }
  return { score, factors };
}

/** Orders findings by exploitability, most exploitable first, and says why each scored as it did. */
export function rankFindings(findings: RankableFinding[]): RankedFinding[] {
  return findings
    .map((finding) => ({ finding, ...scoreOf(finding) }))
    .sort((a, b) => b.score - a.score || a.finding.file.localeCompare(b.finding.file) || (a.finding.line ?? 0) - (b.finding.line ?? 0))
    .map(({ finding, score, factors }, index) => ({
      rank: index + 1,
      score,
      factors,
      rule: finding.rule,
      severity: finding.severity,
      file: finding.file,
      line: finding.line,
      evidence: finding.evidence,
    }));
}
