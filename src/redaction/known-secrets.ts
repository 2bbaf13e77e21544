/** What a known secret becomes; the same word memory recall uses for a secret it recognised. */
export const KNOWN_SECRET_MARKER = '[redacted:secret]';
/** Shorter configured values are not searched for: they would match ordinary words. */
const MIN_KNOWN_SECRET_LENGTH = 6;

/**
 * Replaces the values the service holds secret (serviceSecrets: its API keys, the webhook
 * secret, the provider key, the database and KV store passwords) wherever they appear. One
 * redactor serves every place such a value could be kept: run log lines (src/runlogs/redact-line.ts
 * adds memory recall's rules on top), stored payloads (admission), attempt results (finalize) and
 * the operator texts run events carry (approval notes, cancel reasons).
 */
export interface SecretRedactor {
  /** The secrets searched for, longest first (a secret that starts another never leaves the other's tail). */
  readonly secrets: readonly string[];
  /** `text` with every known secret replaced by KNOWN_SECRET_MARKER. */
  text(text: string): string;
  /**
   * A JSON value with every known secret replaced in its strings, object keys included: the same
   * value when none holds one (nothing is copied), else a copy. The value must be within the JSON
   * depth bound (src/domain/json-bounds.ts), as every record the store takes is: the copy recurses.
   */
  value<T>(value: T): T;
}

export function createSecretRedactor(secrets: readonly string[]): SecretRedactor {
  const known = [...new Set(secrets.filter((s) => s.length >= MIN_KNOWN_SECRET_LENGTH))].sort((a, b) => b.length - a.length);
  const holds = (text: string) => known.some((secret) => text.includes(secret));
  const text = (value: string) => {
    let out = value;
    for (const secret of known) if (out.includes(secret)) out = out.split(secret).join(KNOWN_SECRET_MARKER);
    return out;
  };

  /** Looks before copying, with an explicit stack: most values hold no secret and are kept as they are. */
  function holdsSecret(value: unknown): boolean {
    const pending: unknown[] = [value];
    while (pending.length > 0) {
      const next = pending.pop();
      if (typeof next === 'string') {
        if (holds(next)) return true;
      } else if (Array.isArray(next)) {
        for (const child of next as unknown[]) pending.push(child);
      } else if (typeof next === 'object' && next !== null) {
        for (const [key, child] of Object.entries(next)) {
          if (holds(key)) return true;
          pending.push(child);
        }
      }
    }
    return false;
  }

  function copy(value: unknown): unknown {
    if (typeof value === 'string') return text(value);
    if (Array.isArray(value)) return value.map(copy);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [text(key), copy(child)]));
  }

  return {
    secrets: known,
    text,
    value: <T>(value: T): T => (known.length > 0 && holdsSecret(value) ? (copy(value) as T) : value),
  };
}
