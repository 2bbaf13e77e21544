/** The longest prefix of `text` within `maxBytes` UTF-8 bytes, never splitting a character. */
export function utf8Prefix(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = Math.max(0, maxBytes);
  // Step back off continuation bytes (10xxxxxx) to the start of the character that was cut.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/** Room left for the `…[+N bytes]` mark of a cut line. */
const CUT_MARK_ROOM = 24;

/**
 * A kept line within `maxBytes`: a longer one (or one whose end was already skipped,
 * `skippedBytes`) keeps its start and ends with `…[+N bytes]`, N counting what is not shown.
 */
export function boundLine(text: string, maxBytes: number, skippedBytes = 0): string {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= maxBytes && skippedBytes === 0) return text;
  const kept = utf8Prefix(text, Math.min(bytes, Math.max(0, maxBytes - CUT_MARK_ROOM)));
  const notShown = bytes - Buffer.byteLength(kept, 'utf8') + skippedBytes;
  return `${kept}…[+${notShown} bytes]`;
}
