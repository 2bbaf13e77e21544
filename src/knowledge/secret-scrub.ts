/**
 * The knowledge bodies' guard against configured secrets: a doc that quotes an API key or the
 * webhook secret is indexed as written, but the summary, query and export answer a copy with
 * every such value replaced by `[redacted]` (values shorter than 4 characters are not searched
 * for). Bodies are JSON anyway, so the copy is a JSON round trip.
 */

const MIN_SECRET_LENGTH = 4;

/** A copy of a value with every configured secret replaced; the value itself when there is none to look for. */
export type Scrub = <T>(value: T) => T;

export function secretScrub(secrets: readonly string[] = []): Scrub {
  const searched = secrets.filter((secret) => secret.length >= MIN_SECRET_LENGTH);
  const redact = (text: string) => {
    let out = text;
    for (const secret of searched) out = out.split(secret).join('[redacted]');
    return out;
  };
  return <T>(value: T): T => (searched.length === 0 ? value : (JSON.parse(redact(JSON.stringify(value))) as T));
}
