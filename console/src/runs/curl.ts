/** Single-quotes a word for a POSIX shell. */
const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * The curl command that does what a console button does. The key is never copied: the command
 * reads it from $ORCH_API_KEY, so a pasted command leaks nothing.
 */
export function curlCommand(origin: string, method: 'GET' | 'POST', path: string, body?: unknown): string {
  const parts = ['curl', '-sS'];
  if (method !== 'GET') parts.push('-X', method);
  parts.push('-H', '"Authorization: Bearer $ORCH_API_KEY"');
  if (body !== undefined) parts.push('-H', shellQuote('content-type: application/json'), '--data', shellQuote(JSON.stringify(body)));
  parts.push(shellQuote(`${origin}${path}`));
  return parts.join(' ');
}
