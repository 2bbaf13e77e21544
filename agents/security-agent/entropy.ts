/** Shannon entropy in bits per character: how unpredictable the characters of `value` are. */
export function shannonEntropy(value: string): number {
  if (value.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

const HEX = /^[0-9a-f]+$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TOKEN_CHARSET = /^[A-Za-z0-9+/=_-]+$/;
/** Hex only has 16 symbols, so its ceiling is 4 bits; base64-like text reaches higher. */
const HEX_MIN_LENGTH = 32;
const HEX_MIN_BITS = 3.0;
const TOKEN_MIN_LENGTH = 20;
const TOKEN_MIN_BITS = 3.7;

/**
 * Does `value` read as a machine-generated credential? Long, dense in distinct characters,
 * mixing letters and digits; hashes recorded by lockfiles and readable identifiers are not.
 */
export function looksRandom(value: string): boolean {
  if (!TOKEN_CHARSET.test(value)) return false;
  if (/^sha(?:1|256|384|512)-/.test(value)) return false;
  if (UUID.test(value)) return false;
  if (!/[0-9]/.test(value) || !/[A-Za-z]/.test(value)) return false;
  if (HEX.test(value)) return value.length >= HEX_MIN_LENGTH && shannonEntropy(value) >= HEX_MIN_BITS;
  return value.length >= TOKEN_MIN_LENGTH && shannonEntropy(value) >= TOKEN_MIN_BITS;
}
