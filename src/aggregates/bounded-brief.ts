/** A companion brief stays small whatever the state holds: bridge and channel clients show it whole. */
export const MAX_COMPANION_BYTES = 16_384;
export const MAX_TEXT_CHARS = 240;

export const clipText = (text: string, max = MAX_TEXT_CHARS) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

export interface Bounded {
  /** What was cut to keep the brief within its cap; empty when nothing was. */
  truncation: string[];
  /** Serialized size of the brief as answered. */
  bytes: number;
}

/**
 * Caps each named list at `maxItems[name]`, then halves the largest named list until the whole
 * brief fits `maxBytes`. Every cut is named in `truncation`, so a cut brief never looks complete.
 */
export function fitBrief<T extends Record<string, unknown>>(
  body: T,
  maxItems: Partial<Record<keyof T & string, number>>,
  maxBytes = MAX_COMPANION_BYTES,
): T & Bounded {
  const brief = { ...body, truncation: [] as string[], bytes: 0 } as T & Bounded;
  const lists = Object.keys(maxItems) as Array<keyof T & string>;
  const listOf = (name: keyof T & string) => brief[name] as unknown as unknown[];
  for (const name of lists) {
    const items = listOf(name);
    const max = maxItems[name]!;
    if (items.length > max) {
      brief.truncation.push(`${name}: ${items.length - max} of ${items.length} items left out`);
      (brief as Record<string, unknown>)[name] = items.slice(0, max);
    }
  }
  while (bytesOf(brief) > maxBytes) {
    const largest = lists.map((name) => ({ name, size: bytesOf(listOf(name)) })).sort((a, b) => b.size - a.size)[0];
    const items = largest ? listOf(largest.name) : [];
    if (!largest || items.length === 0) break;
    const keep = Math.floor(items.length / 2);
    brief.truncation.push(`${largest.name}: ${items.length - keep} more items left out to fit ${maxBytes} bytes`);
    (brief as Record<string, unknown>)[largest.name] = items.slice(0, keep);
  }
  // `bytes` is set last and counted in its final width.
  brief.bytes = bytesOf(brief);
  brief.bytes = bytesOf(brief);
  return brief;
}
