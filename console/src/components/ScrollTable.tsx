import type { ReactNode } from 'react';

/**
 * A table in a box of its own that scrolls sideways when the table is wider than the page; the
 * box takes keyboard focus and is named, so it can be scrolled without a pointer. `columns` are
 * the header cells, in order; `children` the body rows. With `empty` set, the body is one muted
 * row across every column saying so instead (the table has nothing to list yet).
 */
export function ScrollTable(props: {
  label: string;
  caption: ReactNode;
  columns: readonly string[];
  className?: string;
  empty?: ReactNode;
  children?: ReactNode;
}) {
  const { label, caption, columns, className, empty, children } = props;
  return (
    <div className="table-scroll" role="region" aria-label={label} tabIndex={0}>
      <table className={className}>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {empty !== undefined ? (
            <tr>
              <td colSpan={columns.length} className="muted">
                {empty}
              </td>
            </tr>
          ) : (
            children
          )}
        </tbody>
      </table>
    </div>
  );
}
