import { Link } from 'react-router';
import { toQueryString } from '../lib/query-string.js';

/**
 * A run's tags as chips (docs/tasks.md, "Run tags"), each a link to the runs list filtered on it.
 * Nothing when the run has none.
 */
export function TagChips({ tags }: { tags: readonly string[] | undefined }) {
  if (!tags || tags.length === 0) return null;
  return (
    <ul className="tag-chips" aria-label="Tags">
      {tags.map((tag) => (
        <li key={tag}>
          <Link className="tag-chip" to={`/runs${toQueryString({ tag })}`} title={`Runs tagged ${tag}`}>
            {tag}
          </Link>
        </li>
      ))}
    </ul>
  );
}
