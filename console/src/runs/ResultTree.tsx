import { formatScalar } from '../lib/leaves.js';
import { isRecord, labelOf } from './format.js';

const MAX_ITEMS = 100;

function itemTitle(value: unknown, index: number): string {
  if (isRecord(value)) {
    for (const key of ['name', 'title', 'id', 'runId', 'type', 'gate', 'check', 'rule', 'file', 'path', 'label']) {
      const v = value[key];
      if (typeof v === 'string' || typeof v === 'number') return `${index + 1}. ${v}`;
    }
  }
  return `item ${index + 1}`;
}

function Leaf({ value, label }: { value: unknown; label: string }) {
  // Long text scrolls in its own box: focusable so a keyboard can scroll it, named after its field.
  if (typeof value === 'string' && value.includes('\n'))
    return (
      <pre className="leaf-text" role="region" aria-label={label} tabIndex={0}>
        {value}
      </pre>
    );
  return <>{formatScalar(value)}</>;
}

const isScalar = (v: unknown) => v === null || v === undefined || ['string', 'number', 'boolean'].includes(typeof v);

/** The fields of one record as labelled rows; nested records and lists fold open below their label. */
function Fields({ record, depth }: { record: Record<string, unknown>; depth: number }) {
  const entries = Object.entries(record);
  if (entries.length === 0) return <p className="muted">(no fields)</p>;
  return (
    <dl className="tree-fields">
      {entries.map(([key, child]) => (
        <Node key={key} label={labelOf(key)} value={child} depth={depth} />
      ))}
    </dl>
  );
}

function Node({ label, value, depth }: { label: string; value: unknown; depth: number }) {
  if (isScalar(value)) {
    return (
      <div className="tree-leaf">
        <dt>{label}</dt>
        <dd>
          <Leaf value={value} label={label} />
        </dd>
      </div>
    );
  }
  if (Array.isArray(value) && value.every(isScalar)) {
    return (
      <div className="tree-leaf">
        <dt>{label}</dt>
        <dd>{value.length === 0 ? <span className="muted">none</span> : value.map(formatScalar).join(', ')}</dd>
      </div>
    );
  }
  const size = Array.isArray(value) ? value.length : Object.keys(value as object).length;
  const count = `${size} ${Array.isArray(value) ? 'item' : 'field'}${size === 1 ? '' : 's'}`;
  return (
    <div className="tree-branch">
      <details open={depth < 1}>
        <summary>
          {label} <span className="muted">({count})</span>
        </summary>
        <TreeBody value={value} depth={depth + 1} />
      </details>
    </div>
  );
}

function TreeBody({ value, depth }: { value: unknown; depth: number }) {
  if (Array.isArray(value)) {
    const shown = value.slice(0, MAX_ITEMS);
    return (
      <>
        <dl className="tree-fields">
          {shown.map((item, i) => (
            <Node key={i} label={itemTitle(item, i)} value={item} depth={depth} />
          ))}
        </dl>
        {value.length > MAX_ITEMS && <p className="muted">{value.length - MAX_ITEMS} more not shown</p>}
      </>
    );
  }
  if (isRecord(value)) return <Fields record={value} depth={depth} />;
  return <Leaf value={value} label="Text" />;
}

/** Any record as a collapsible tree with labelled leaves: no JSON text, no dotted key paths. */
export function ResultTree({ value, omit }: { value: unknown; omit?: ReadonlySet<string> }) {
  if (isRecord(value) && omit) {
    const kept = Object.fromEntries(Object.entries(value).filter(([k]) => !omit.has(k)));
    return <TreeBody value={kept} depth={0} />;
  }
  return <TreeBody value={value} depth={0} />;
}
