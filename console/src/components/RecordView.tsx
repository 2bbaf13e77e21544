import type { ReactNode } from 'react';
import { humanize } from '../lib/labels.js';
import { formatScalar } from '../lib/leaves.js';
import { isIsoInstant } from '../lib/time.js';
import { Duration, RelativeTime } from './Time.js';

/**
 * A record of open shape (business overview, knowledge diagnostics, health sections) the way a
 * person reads it: labelled fields, lists of records as tables with column names, times in words,
 * durations in units. Never dotted key paths, never raw JSON.
 */

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isScalar = (value: unknown) => value === null || value === undefined || ['string', 'number', 'boolean'].includes(typeof value);

const MAX_ROWS = 50;
const MAX_COLUMNS = 8;

function Scalar({ name, value }: { name: string; value: unknown }) {
  if (typeof value === 'number' && /Ms$/.test(name)) return <Duration ms={value} />;
  if (isIsoInstant(value)) return <RelativeTime iso={value} />;
  if (value === null || value === undefined) return <span className="muted">—</span>;
  if (typeof value === 'number' && /(ratio|rate)$/i.test(name) && value >= 0 && value <= 1) return <span className="num">{Math.round(value * 1000) / 10} %</span>;
  return <>{formatScalar(value)}</>;
}

function RecordTable({ rows, caption }: { rows: Record<string, unknown>[]; caption?: string }) {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))].slice(0, MAX_COLUMNS);
  const shown = rows.slice(0, MAX_ROWS);
  return (
    <div className="table-scroll" role="region" aria-label={caption ?? 'Records'} tabIndex={0}>
      <table className={columns.length >= 5 ? 'wide' : undefined}>
        {caption && <caption>{caption}</caption>}
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {humanize(c)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {shown.map((row, i) => (
            <tr key={i}>
              {columns.map((c) => (
                <td key={c}>
                  <Value name={c} value={row[c]} depth={3} />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length > shown.length && <p className="muted">{rows.length - shown.length} more not shown</p>}
    </div>
  );
}

function Value({ name, value, depth }: { name: string; value: unknown; depth: number }): ReactNode {
  if (isScalar(value)) return <Scalar name={name} value={value} />;
  if (Array.isArray(value)) {
    if (value.length === 0) return <span className="muted">none</span>;
    if (value.every(isScalar)) return <>{value.map((v) => formatScalar(v)).join(', ')}</>;
    if (depth >= 3) return <span className="muted">{value.length} items</span>;
    if (value.every(isRecord)) return <RecordTable rows={value} />;
    return <>{value.length} items</>;
  }
  if (isRecord(value)) {
    if (depth >= 3) return <span className="muted">{Object.keys(value).length} fields</span>;
    return <Fields value={value} depth={depth + 1} />;
  }
  return <>{String(value)}</>;
}

function Fields({ value, depth }: { value: Record<string, unknown>; depth: number }) {
  // A null `unavailableReason` says the figures are real: nothing to show.
  const entries = Object.entries(value).filter(([key, child]) => !(key === 'unavailableReason' && child === null));
  if (entries.length === 0) return <span className="muted">none</span>;
  return (
    <dl className="fields">
      {entries.map(([key, child]) => (
        <div key={key} className={isScalar(child) ? 'field' : 'field field-wide'}>
          <dt>{humanize(key)}</dt>
          <dd>
            <Value name={key} value={child} depth={depth} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** One record (or list of records) with labelled fields; `omit` leaves out keys shown elsewhere. */
export function RecordView({ value, omit = [], caption }: { value: unknown; omit?: readonly string[]; caption?: string }) {
  if (Array.isArray(value) && value.every(isRecord)) {
    return value.length === 0 ? <p className="muted">None.</p> : <RecordTable rows={value} caption={caption} />;
  }
  if (!isRecord(value)) return <Value name={caption ?? ''} value={value} depth={0} />;
  const kept = Object.fromEntries(Object.entries(value).filter(([k]) => !omit.includes(k)));
  return <Fields value={kept} depth={0} />;
}
