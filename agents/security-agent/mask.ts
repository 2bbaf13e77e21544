/**
 * Masks a secret so evidence can say which value is meant without revealing it: a short
 * prefix (at most 4 characters, and at most a quarter of the value so a short password keeps
 * most of itself hidden), an ellipsis and the length.
 */
export function maskSecret(value: string): string {
  const shown = Math.min(4, Math.floor(value.length / 4));
  return `${value.slice(0, shown)}…(${value.length} chars)`;
}
