/**
 * Run tags (docs/tasks.md, "Run tags"): short labels a trigger, schedule, flow step or rerun puts on a
 * run, kept on its record and filtered on by every store. A run has at most MAX_RUN_TAGS, each
 * 1..MAX_TAG_LENGTH characters of TAG_PATTERN's alphabet (letters, digits and `._:/=-`), so a tag
 * is safe in a URL query, a SQL parameter, a chat message and a command line as it is.
 */
export const MAX_RUN_TAGS = 20;
export const MAX_TAG_LENGTH = 64;
export const TAG_PATTERN = '^[A-Za-z0-9._:/=-]{1,64}$';
const TAG_RE = new RegExp(TAG_PATTERN);

export const isRunTag = (value: unknown): value is string => typeof value === 'string' && TAG_RE.test(value);

/** The tags a run record carries (none on records stored before tags existed). */
export function tagsOf(run: { tags?: readonly string[] | null }): string[] {
  return Array.isArray(run.tags) ? run.tags.filter(isRunTag) : [];
}

/** Tags as a run keeps them: duplicates dropped, first spelling first. */
export function normalizedTags(tags: readonly string[] | undefined): string[] {
  return tags === undefined ? [] : [...new Set(tags)];
}

/** True when the run carries every one of `wanted` (an empty list matches every run). */
export function hasAllTags(run: { tags?: readonly string[] | null }, wanted: readonly string[]): boolean {
  if (wanted.length === 0) return true;
  const carried = new Set(tagsOf(run));
  return wanted.every((tag) => carried.has(tag));
}
