import { redactText } from '../agents/memory-recall.js';

/** What a known secret becomes; the same word memory recall uses for a secret it recognised. */
export const KNOWN_SECRET_MARKER = '[redacted:secret]';
/** Shorter configured values are not searched for: they would match ordinary words. */
const MIN_KNOWN_SECRET_LENGTH = 6;
/** The shortest tail of a cut line taken for the start of a known secret. */
const MIN_SECRET_PREFIX = 4;

export type LineRedactor = (text: string, options?: { cut?: boolean }) => string;

/**
 * Redaction of one kept log line: first every value the service itself holds secret (its API
 * keys, the webhook secret, ...) wherever it appears, then memory recall's rules (private keys,
 * bearer tokens, `key=`/`token:`-style assignments, e-mail addresses, absolute paths,
 * high-entropy tokens). A line that was cut (`cut`) may end in the first part of a known secret:
 * that tail goes too.
 */
export function createLineRedactor(secrets: readonly string[]): LineRedactor {
  // Longest first, so a secret that starts another one never leaves the other's tail behind.
  const known = [...new Set(secrets.filter((s) => s.length >= MIN_KNOWN_SECRET_LENGTH))].sort((a, b) => b.length - a.length);
  return (text, options = {}) => {
    let out = text;
    for (const secret of known) if (out.includes(secret)) out = out.split(secret).join(KNOWN_SECRET_MARKER);
    if (options.cut) out = withoutSecretStart(out, known);
    return redactText(out);
  };
}

function withoutSecretStart(text: string, secrets: readonly string[]): string {
  for (const secret of secrets) {
    for (let n = Math.min(secret.length - 1, text.length); n >= MIN_SECRET_PREFIX; n--) {
      if (text.endsWith(secret.slice(0, n))) return `${text.slice(0, text.length - n)}${KNOWN_SECRET_MARKER}`;
    }
  }
  return text;
}
