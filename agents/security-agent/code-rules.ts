import type { RankableFinding, Severity } from './finding.js';
import { isScriptFile, isShellLike } from './file-kinds.js';
import { redactLine } from './secret-rules.js';

interface CodeRule {
  rule: string;
  severity: Severity;
  pattern: RegExp;
  /** Which files the rule applies to. */
  appliesTo: 'scripts' | 'scripts-and-shell';
  why: string;
}

const CODE_RULES: CodeRule[] = [
  { rule: 'eval-call', severity: 'high', appliesTo: 'scripts', pattern: /(?<![\w$.])eval\s*\(/, why: 'eval runs a string as code' },
  { rule: 'new-function', severity: 'high', appliesTo: 'scripts', pattern: /\bnew\s+Function\s*\(/, why: 'new Function compiles a string as code' },
  {
    rule: 'shell-exec-interpolated',
    severity: 'high',
    appliesTo: 'scripts',
    // exec/execSync whose command is a template with ${…} or a string joined with +.
    pattern: /\bexec(?:Sync)?\s*\(\s*(?:`[^`]*\$\{|(["'])(?:(?!\1).)*\1\s*\+|[A-Za-z_$][\w$.]*\s*\+)/,
    why: 'a shell command built from strings runs whatever the joined text says',
  },
  { rule: 'spawn-shell-true', severity: 'medium', appliesTo: 'scripts', pattern: /\bshell\s*:\s*true\b/, why: 'shell: true lets arguments be read as shell syntax' },
  { rule: 'inner-html-assignment', severity: 'medium', appliesTo: 'scripts', pattern: /\.(?:inner|outer)HTML\s*(?:\+?=)(?!=)/, why: 'assigning HTML strings invites script injection' },
  { rule: 'tls-verification-disabled', severity: 'high', appliesTo: 'scripts', pattern: /\brejectUnauthorized\s*:\s*false\b/, why: 'certificate checks are off, so traffic can be intercepted' },
  {
    rule: 'tls-verification-disabled',
    severity: 'high',
    appliesTo: 'scripts-and-shell',
    pattern: /\bNODE_TLS_REJECT_UNAUTHORIZED\b["'\]]?\s*[=:]\s*["']?0\b/,
    why: 'certificate checks are off for the whole process',
  },
  {
    rule: 'sql-string-concatenation',
    severity: 'high',
    appliesTo: 'scripts',
    pattern: /(?:(["'])\s*(?:SELECT|INSERT\s+INTO|UPDATE|DELETE\s+FROM)\b(?:(?!\1).)*\1\s*\+|`\s*(?:SELECT|INSERT\s+INTO|UPDATE|DELETE\s+FROM)\b[^`]*\$\{)/i,
    why: 'a query joined from strings is open to SQL injection',
  },
  {
    rule: 'chmod-777',
    severity: 'medium',
    appliesTo: 'scripts-and-shell',
    pattern: /\bchmod\s+(?:-R\s+)?0?777\b|\bchmod(?:Sync)?\s*\([^,]+,\s*0o?777\b/,
    why: 'everyone may read, write and run the target',
  },
];

/** Values a caller controls; a dangerous call next to them is reachable from input. */
const INPUT_SOURCES = /\b(?:req|request|ctx\.request)\.(?:body|query|params|headers|cookies)|\bprocess\.argv\b|\blocation\.(?:search|hash|href)|\bevent\.data\b|\bURLSearchParams\b|\bprocess\.stdin\b|\buserInput\b/;
/** How many lines around a call count as "next to" it. */
const INPUT_WINDOW = 3;

function isComment(line: string): boolean {
  return /^\s*(?:\/\/|\/\*|\*|#(?!!))/.test(line);
}

/** Dangerous calls and settings in one file, line by line (the `dangerous-code` family). */
export function findDangerousCode(file: string, text: string): RankableFinding[] {
  const script = isScriptFile(file);
  const shell = isShellLike(file);
  if (!script && !shell) return [];
  const lines = text.split(/\r?\n/);
  const findings: RankableFinding[] = [];
  lines.forEach((line, index) => {
    if (script && isComment(line)) return;
    const seen = new Set<string>();
    for (const rule of CODE_RULES) {
      if (seen.has(rule.rule)) continue;
      if (rule.appliesTo === 'scripts' && !script) continue;
      const match = rule.pattern.exec(line);
      if (!match) continue;
      seen.add(rule.rule);
      const window = lines.slice(Math.max(0, index - INPUT_WINDOW), index + INPUT_WINDOW + 1).join('\n');
      const nearInput = INPUT_SOURCES.test(window);
      findings.push({
        family: 'dangerous-code',
        rule: rule.rule,
        severity: rule.severity,
        file,
        line: index + 1,
        evidence: `${redactLine(line.trim()).slice(0, 160)} (${rule.why}${nearInput ? '; input is read nearby' : ''})`,
        nearInput,
      });
    }
  });
  return findings;
}
