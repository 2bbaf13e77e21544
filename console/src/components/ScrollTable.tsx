import type { ReactNode } from 'react';

/**
 * A table in a box of its own that scrolls sideways when the table is wider than the page; the
 * box takes keyboard focus and is named, so it can be scrolled without a pointer. `columns` are
 * the header cells, in order; `children` the body rows.
 */
export function ScrollTable(props: { label: string; caption: ReactNode; columns: readonly string[]; className?: string; children: ReactNode }) {
  const { label, caption, columns, className, children } = props;
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
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
