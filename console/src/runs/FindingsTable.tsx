import { useMemo, useState } from 'react';
import { SEVERITY_ORDER, type FindingRow } from './result-kinds.js';

type SortKey = 'severity' | 'rule' | 'file';

const severityRank = (s: string) => {
  const i = SEVERITY_ORDER.indexOf(s);
  return i < 0 ? SEVERITY_ORDER.length : i;
};

function compare(a: FindingRow, b: FindingRow, key: SortKey): number {
  if (key === 'severity') return severityRank(a.severity) - severityRank(b.severity);
  if (key === 'rule') return a.rule.localeCompare(b.rule);
  return (a.file ?? '').localeCompare(b.file ?? '') || (a.line ?? 0) - (b.line ?? 0);
}

/** Findings with sortable columns (severity, rule, file:line); a header button sorts, again reverses. */
export function FindingsTable({ rows, caption }: { rows: FindingRow[]; caption: string }) {
  const [sort, setSort] = useState<{ key: SortKey; dir: 1 | -1 }>({ key: 'severity', dir: 1 });
  const sorted = useMemo(() => [...rows].sort((a, b) => compare(a, b, sort.key) * sort.dir), [rows, sort]);
  const header = (key: SortKey, label: string) => (
    <th scope="col" aria-sort={sort.key === key ? (sort.dir === 1 ? 'ascending' : 'descending') : 'none'}>
      <button type="button" className="sort" onClick={() => setSort((s) => ({ key, dir: s.key === key ? (s.dir === 1 ? -1 : 1) : 1 }))}>
        {label}
        <span aria-hidden="true">{sort.key === key ? (sort.dir === 1 ? ' ▲' : ' ▼') : ''}</span>
      </button>
    </th>
  );
  if (rows.length === 0) return <p className="empty">No findings.</p>;
  return (
    <div className="table-scroll" role="region" aria-label={caption} tabIndex={0}>
      <table className="findings">
        <caption>
          {caption}: {rows.length}
        </caption>
        <thead>
          <tr>
            {header('severity', 'Severity')}
            {header('rule', 'Rule')}
            {header('file', 'File:line')}
            <th scope="col">Evidence</th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((f, i) => (
            <tr key={`${f.rule}|${f.file}|${f.line}|${i}`}>
              <td>
                <span className={`badge sev-${f.severity.replace(/[^a-z-]/gi, '')}`}>{f.severity}</span>
              </td>
              <td>{f.rule}</td>
              <td className="mono">{f.file ? `${f.file}${f.line !== null ? `:${f.line}` : ''}` : '—'}</td>
              <td>{f.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
