import { looksRandom } from './entropy.js';
import type { RankableFinding, Severity } from './finding.js';
import { isCodeFile, isLockfile } from './file-kinds.js';
import { maskSecret } from './mask.js';

/** A credential format recognizable by its own shape, wherever it appears. */
interface TokenPattern {
  rule: string;
  label: string;
  severity: Severity;
  /** Group 1, when present, is the secret; otherwise the whole match is. */
  pattern: RegExp;
}

const TOKEN_PATTERNS: TokenPattern[] = [
  { rule: 'aws-access-key-id', label: 'AWS access key id', severity: 'critical', pattern: /\b((?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16})\b/ },
  { rule: 'github-token', label: 'GitHub token', severity: 'critical', pattern: /\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/ },
  { rule: 'npm-token', label: 'npm token', severity: 'critical', pattern: /\b(npm_[A-Za-z0-9]{36})\b/ },
  { rule: 'slack-token', label: 'Slack token', severity: 'high', pattern: /\b(xox[abposr]-[A-Za-z0-9-]{10,})/ },
  { rule: 'slack-webhook', label: 'Slack webhook URL', severity: 'high', pattern: /(https:\/\/hooks\.slack\.com\/services\/T[A-Za-z0-9_]+\/B[A-Za-z0-9_]+\/[A-Za-z0-9_]+)/ },
  { rule: 'stripe-secret-key', label: 'Stripe secret key', severity: 'critical', pattern: /\b((?:sk|rk)_live_[A-Za-z0-9]{16,})\b/ },
  { rule: 'google-api-key', label: 'Google API key', severity: 'high', pattern: /\b(AIza[0-9A-Za-z_-]{35})\b/ },
  { rule: 'credentials-in-url', label: 'password in a URL', severity: 'high', pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@'"`]+:([^\s@/'"`]+)@[^\s/'"`]/i },
];

const PRIVATE_KEY_BLOCK = /-----BEGIN ((?:RSA |DSA |EC |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?)-----/;

/**
 * `key = value`, `key: value`, `"key": "value"`, `export KEY=value`. Group 1 is the key, group
 * 3 a quoted value (group 2 its quote), group 4 an unquoted one. `==` comparisons do not match.
 */
const ASSIGNMENT = /(?:^|[\s{,;(])(?:export\s+)?["']?([A-Za-z_][\w.-]*)["']?\s*(?::=|:|=(?![=>]))\s*(?:(["'`])((?:(?!\2).)*)\2|([^\s"'`,;#]+))/g;

/** Key names that hold a credential, compared on the key split into lower-case words. */
const SENSITIVE_KEY = /(?:^|_)(?:password|passwd|passphrase|pwd|pass|secret|secret_key|api_key|apikey|access_key|private_key|auth_token|access_token|refresh_token|client_secret|token|credential|credentials)$/;

/** Values that stand in for a secret instead of being one. */
const STAND_IN_VALUE = /^(?:|x+|\*+|\.+|-+|#+|changeme|change_me|change-me|secret|password|example.*|your[_-].*|<.*>|\{\{.*\}\}|%.*%|null|none|undefined|true|false|required|optional|redacted)$/i;

/** `dbPassword`, `DB-PASSWORD`, `db.password` → `db_password`. */
function keyWords(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[.-]+/g, '_')
    .toLowerCase();
}

function isStandIn(value: string): boolean {
  return STAND_IN_VALUE.test(value.trim()) || /^\$|\$\{|process\.env|os\.environ|getenv/i.test(value);
}

interface Assignment {
  key: string;
  value: string;
  quoted: boolean;
}

function assignmentsOf(line: string): Assignment[] {
  const found: Assignment[] = [];
  for (const match of line.matchAll(ASSIGNMENT)) {
    const quoted = match[3] !== undefined;
    found.push({ key: match[1]!, value: (quoted ? match[3] : match[4]) ?? '', quoted });
  }
  return found;
}

/** Comment lines of code files hold documentation, not configuration. */
function isCodeComment(line: string): boolean {
  return /^\s*(?:\/\/|\/\*|\*)/.test(line);
}

/**
 * Secrets committed in one file: known token formats, private key blocks and credential
 * assignments (the `secret-patterns` family), and long random values assigned to any key
 * (`secret-entropy`). At most one finding per line, the most specific rule winning.
 */
export function findSecrets(file: string, text: string, families: { patterns: boolean; entropy: boolean }): RankableFinding[] {
  const findings: RankableFinding[] = [];
  const code = isCodeFile(file);
  const lockfile = isLockfile(file);
  text.split(/\r?\n/).forEach((line, index) => {
    const at = { file, line: index + 1 };
    if (families.patterns) {
      const block = PRIVATE_KEY_BLOCK.exec(line);
      if (block) {
        findings.push({ ...at, family: 'secret-patterns', rule: 'private-key-block', severity: 'critical', evidence: `-----BEGIN ${block[1]}----- block (key material not shown)` });
        return;
      }
      for (const token of TOKEN_PATTERNS) {
        const match = token.pattern.exec(line);
        if (!match) continue;
        const value = match[1] ?? match[0];
        if (token.rule === 'credentials-in-url' && isStandIn(value)) continue;
        findings.push({ ...at, family: 'secret-patterns', rule: token.rule, severity: token.severity, evidence: `${token.label} ${maskSecret(value)}` });
        return;
      }
    }
    if (lockfile || (code && isCodeComment(line))) return;
    for (const assignment of assignmentsOf(line)) {
      // In code a bare identifier is a variable holding the value, not the value itself.
      if (code && !assignment.quoted) continue;
      if (isStandIn(assignment.value)) continue;
      const words = keyWords(assignment.key);
      if (families.patterns && SENSITIVE_KEY.test(words) && assignment.value.length >= 4 && !/^\d{1,6}$/.test(assignment.value)) {
        const aws = /aws_secret_access_key$/.test(words);
        findings.push({
          ...at,
          family: 'secret-patterns',
          rule: aws ? 'aws-secret-access-key' : 'credential-assignment',
          severity: aws ? 'critical' : 'high',
          evidence: `${assignment.key} = ${maskSecret(assignment.value)}`,
        });
        return;
      }
      if (families.entropy && looksRandom(assignment.value)) {
        findings.push({ ...at, family: 'secret-entropy', rule: 'high-entropy-value', severity: 'medium', evidence: `${assignment.key} = ${maskSecret(assignment.value)}` });
        return;
      }
    }
  });
  return findings;
}

/**
 * The line with every recognizable secret in it masked, so evidence quoting code or a
 * manifest cannot leak a credential that sits on the same line.
 */
export function redactLine(line: string): string {
  let redacted = line;
  for (const token of TOKEN_PATTERNS) {
    const global = new RegExp(token.pattern.source, `${token.pattern.flags}g`);
    redacted = redacted.replace(global, (whole: string, secret?: string) => {
      const value = typeof secret === 'string' ? secret : whole;
      return whole.replace(value, maskSecret(value));
    });
  }
  for (const assignment of assignmentsOf(redacted)) {
    if (assignment.value.includes('…(')) continue;
    if (isStandIn(assignment.value)) continue;
    if (SENSITIVE_KEY.test(keyWords(assignment.key)) || looksRandom(assignment.value)) {
      redacted = redacted.replace(assignment.value, maskSecret(assignment.value));
    }
  }
  return redacted.replace(/(["'`])([A-Za-z0-9+/=_-]{20,})\1/g, (whole, quote: string, value: string) =>
    looksRandom(value) ? `${quote}${maskSecret(value)}${quote}` : whole,
  );
}
