import { redactText } from '../agents/memory-recall.js';
import { createSecretRedactor, KNOWN_SECRET_MARKER } from '../redaction/known-secrets.js';

/** The shortest tail of a cut line taken for the start of a known secret. */
const MIN_SECRET_PREFIX = 4;

export type LineRedactor = (text: string, options?: { cut?: boolean }) => string;

/**
 * Redaction of one kept log line: first every value the service itself holds secret (its API
 * keys, the webhook secret, ...) wherever it appears, by the redactor stored records use too,
 * then memory recall's rules (private keys, bearer tokens, `key=`/`token:`-style assignments,
 * e-mail addresses, absolute paths, high-entropy tokens). A line that was cut (`cut`) may end in
 * the first part of a known secret: that tail goes too.
 */
export function createLineRedactor(secrets: readonly string[]): LineRedactor {
  const known = createSecretRedactor(secrets);
  return (text, options = {}) => {
    let out = known.text(text);
    if (options.cut) out = withoutSecretStart(out, known.secrets);
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
