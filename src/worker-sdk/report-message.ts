/** Lines and characters a failure message keeps. */
export const MESSAGE_MAX_LINES = 5;
export const MESSAGE_MAX_CHARS = 500;

/**
 * A test report's failure message as evidence, not as a log: its first lines, bounded, line
 * endings unified. Null when there is no text at all.
 */
export function shortMessage(text: string | null | undefined, maxChars = MESSAGE_MAX_CHARS): string | null {
  if (text === null || text === undefined) return null;
  const trimmed = text.replace(/\r\n?/g, '\n').trim();
  if (trimmed === '') return null;
  const lines = trimmed.split('\n').slice(0, MESSAGE_MAX_LINES).join('\n');
  return lines.length > maxChars ? `${lines.slice(0, maxChars - 1)}…` : lines;
}
