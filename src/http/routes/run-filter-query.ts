import Type from 'typebox';
import { invalidRequest, pointer } from '../../domain/errors.js';
import { MAX_RUN_TAGS, MAX_TAG_LENGTH, TAG_PATTERN } from '../../domain/run-tags.js';
import { MAX_PAYLOAD_FILTER_FIELDS, PAYLOAD_FIELD_PATTERN } from '../../store/run-field-filters.js';

/** The query-string prefix of a payload field filter: `?payload.scope=projects/app`. */
const PAYLOAD_QUERY_PREFIX = 'payload.';

/** Query keys `payload.<field>`: the only keys beyond the declared ones a run listing accepts. */
export const PAYLOAD_QUERY_KEYS = {
  [`^payload\\.${PAYLOAD_FIELD_PATTERN.slice(1)}`]: Type.String({
    maxLength: 400,
    description: 'exact value of a payload field (dotted for nested fields): text, or a number or boolean spelled as JSON spells it',
  }),
};

/** A tag filter: runs carrying every tag named (docs/tasks.md, "Run tags"); `how` says how to name several. */
const tagFilter = (how: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: MAX_TAG_LENGTH, pattern: TAG_PATTERN }), {
    minItems: 1,
    maxItems: MAX_RUN_TAGS,
    description: `only runs carrying every one of these tags (${how}; at most ${MAX_RUN_TAGS})`,
  });

/** `?tag=` of the run listing, repeatable. */
export const TagQuery = tagFilter('repeat the parameter: `?tag=a&tag=b`');
/** `tags` of a bulk action's filter. */
export const TagsFilter = tagFilter('a JSON array');

export const VerdictQuery = Type.String({
  minLength: 1,
  maxLength: 100,
  description: "only runs whose result's `verdict` or `posture` is this text (for example `failed`)",
});

/** The payload filter a query string names, or undefined when it names none; more than the bound is a 400. */
export function payloadFilterOfQuery(query: Record<string, unknown>): Record<string, string> | undefined {
  const filter: Record<string, string> = {};
  for (const [key, value] of Object.entries(query)) {
    if (key.startsWith(PAYLOAD_QUERY_PREFIX) && typeof value === 'string') filter[key.slice(PAYLOAD_QUERY_PREFIX.length)] = value;
  }
  const count = Object.keys(filter).length;
  if (count > MAX_PAYLOAD_FILTER_FIELDS) {
    throw invalidRequest(`at most ${MAX_PAYLOAD_FILTER_FIELDS} payload fields can be matched at once (${count} given)`, [
      { path: pointer('querystring'), message: `more than ${MAX_PAYLOAD_FILTER_FIELDS} payload.* keys` },
    ]);
  }
  return count === 0 ? undefined : filter;
}
