import { createHash } from 'node:crypto';

/**
 * One statement of a fact in a doc: a named key (a setting, env variable, port, version) and the
 * value the doc gives it. Two docs giving one key different values is a contradiction signal.
 */
export interface DocFact {
  /** Normalized key: lower case, single spaces (`port`, `api_key_rotation`, `service port`). */
  key: string;
  /** Normalized value; a secret-looking key's value is replaced by a fingerprint. */
  value: string;
  line: number;
  /** The statement as written, cut to 200 characters (secret values masked). */
  statement: string;
}

/** Keys whose values must never be copied out of a doc: only a fingerprint is kept. */
const SECRET_KEY = /(secret|token|password|passwd|credential|api[_-]?key|private[_-]?key)/i;

const MAX_FACTS_PER_DOC = 200;

function normalizeKey(raw: string): string {
  return raw.trim().toLowerCase().replace(/\s+/g, ' ');
}

function normalizeValue(raw: string): string {
  return raw
    .trim()
    .replace(/^["'`]+|["'`]+$/g, '')
    .replace(/[.,;:)]+$/, '')
    .toLowerCase();
}

/** `sha256:<first 12 hex>` of a secret value, so two docs can still be compared without it. */
function fingerprint(value: string): string {
  return `sha256:${createHash('sha256').update(value).digest('hex').slice(0, 12)}`;
}

const VALUE = String.raw`(?:\x60([^\x60\n]{1,80})\x60|(\d[\w.:/-]*)|(true|false|on|off|enabled|disabled|yes|no)\b)`;

/** `KEY` (=|:|is|defaults to|...) value, where the key is in a code span. */
const CODE_KEY_STATEMENT = new RegExp(
  String.raw`\x60([A-Za-z_][\w.-]{1,80})\x60\s*(?:=|:|is set to|is|defaults to|default(?:s)? is|must be|should be|equals)\s*${VALUE}`,
  'gi',
);
/** Shell-style assignments: `PORT=3000`, in prose or code samples. */
const ENV_ASSIGNMENT = /(?:^|[\s`(])([A-Z][A-Z0-9_]{2,})=([^\s`'",;)]+)/g;
/** "the service listens on port 3000". */
const PORT_STATEMENT = /\b([A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*)?)\s+(?:listens|runs|is served|is available|binds|serves)\s+on\s+port\s+(\d{2,5})\b/gi;
/** "Node version 20", "requires Node 20.11". */
const VERSION_STATEMENT = /\b(?:[Rr]equires\s+([A-Z][\w.-]+)\s+v?(\d+(?:\.\d+){0,2})|([A-Z][\w.-]+)\s+version\s+v?(\d+(?:\.\d+){0,2}))\b/g;
/** | `key` | value | table rows. */
const TABLE_ROW = /^\|\s*\x60?([A-Za-z_][\w.-]{1,80})\x60?\s*\|\s*([^|]{1,60}?)\s*\|/;

const ARTICLES = /^(?:the|a|an|this|our|your)\s+/i;

/**
 * Deterministic fact statements of one doc. Code fences contribute only shell-style assignments
 * (a sample `PORT=3000` is still a claim about the port); everything else is read from prose,
 * lists and tables. Values of secret-looking keys are fingerprinted, never kept.
 */
export function extractFacts(content: string): DocFact[] {
  const facts: DocFact[] = [];
  const seen = new Set<string>();
  let inFence = false;
  const lines = content.split(/\r?\n/);

  const add = (rawKey: string, rawValue: string, line: number, text: string) => {
    if (facts.length >= MAX_FACTS_PER_DOC) return;
    const key = normalizeKey(rawKey);
    let value = normalizeValue(rawValue);
    if (key === '' || value === '') return;
    let statement = text.trim().slice(0, 200);
    if (SECRET_KEY.test(key)) {
      statement = statement.split(rawValue.trim()).join('[redacted]');
      value = fingerprint(value);
    }
    const id = `${key}\u0000${value}\u0000${line}`;
    if (seen.has(id)) return;
    seen.add(id);
    facts.push({ key, value, line, statement });
  };

  lines.forEach((text, index) => {
    const line = index + 1;
    if (/^\s*(```|~~~)/.test(text)) {
      inFence = !inFence;
      return;
    }
    for (const m of text.matchAll(ENV_ASSIGNMENT)) add(m[1]!, m[2]!, line, text);
    if (inFence) return;
    for (const m of text.matchAll(CODE_KEY_STATEMENT)) add(m[1]!, m[2] ?? m[3] ?? m[4] ?? '', line, text);
    for (const m of text.matchAll(PORT_STATEMENT)) {
      const subject = m[1]!.replace(ARTICLES, '');
      add(`${subject} port`, m[2]!, line, text);
    }
    for (const m of text.matchAll(VERSION_STATEMENT)) add(`${m[1] ?? m[3]} version`, m[2] ?? m[4] ?? '', line, text);
    const row = TABLE_ROW.exec(text);
    if (row && !/^-+$/.test(row[2]!.trim()) && !/^:?-{3,}/.test(row[1]!)) {
      const value = row[2]!.trim();
      // Only short, single-token cells are values; prose cells describe rather than state.
      if (/^\x60?[^\s|]{1,40}\x60?$/.test(value) && !/^(value|default|type|name|key)$/i.test(value)) add(row[1]!, value, line, text);
    }
  });
  return facts;
}
