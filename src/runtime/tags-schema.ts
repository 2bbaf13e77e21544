import Type from 'typebox';
import { MAX_RUN_TAGS, MAX_TAG_LENGTH, TAG_PATTERN } from '../domain/run-tags.js';

/**
 * The `tags` field of a request body (trigger, schedule, flow step): the route schemas spread it
 * into their bodies, so a bad tag is a 400 naming `/body/tags/<i>` before anything is admitted
 * or stored (docs/tasks.md, "Run tags").
 */
export const TagsField = {
  tags: Type.Optional(
    Type.Array(
      Type.String({
        minLength: 1,
        maxLength: MAX_TAG_LENGTH,
        pattern: TAG_PATTERN,
        description: `1 to ${MAX_TAG_LENGTH} characters of A-Z a-z 0-9 . _ : / = -`,
      }),
      {
        maxItems: MAX_RUN_TAGS,
        description: `labels kept on the run (at most ${MAX_RUN_TAGS}; a repeated tag is kept once); GET /api/tasks/runs?tag= filters on them`,
      },
    ),
  ),
};

/** The tags a request asks for, leaving the field out when it sent none. */
export function requestedTags(request: { tags?: string[] }): { tags?: string[] } {
  return request.tags !== undefined && request.tags.length > 0 ? { tags: request.tags } : {};
}
