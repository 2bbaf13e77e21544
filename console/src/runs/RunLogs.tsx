import { useEffect, useMemo, useRef, useState } from 'react';
import { useApiQuery } from '../api/hooks.js';
import type { RunLogLine, RunLogsAnswer } from '../api/types.js';
import { can } from '../auth/roles.js';
import { useSession } from '../auth/session.js';
import { QueryView } from '../components/common.js';
import { segment } from '../lib/query-string.js';
import { silentAttemptsNote } from './log-attempts.js';

interface ShownLine {
  key: string;
  attemptId: string;
  at: string;
  stream: string;
  line: string;
}

/** Kept lines first, then live ones the store did not have yet (a line is its attempt, time and text). */
function mergeLines(kept: RunLogsAnswer | undefined, live: RunLogLine[]): ShownLine[] {
  const out: ShownLine[] = [];
  const seen = new Set<string>();
  const add = (attemptId: string, at: string, stream: string, line: string) => {
    const key = `${attemptId}\u0000${at}\u0000${line}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ key: `${key}\u0000${out.length}`, attemptId, at, stream, line });
  };
  for (const a of kept?.attempts ?? []) for (const l of a.lines) add(a.attemptId, l.at, l.stream, l.line);
  for (const l of live) add(l.attemptId, l.at, l.stream, l.line);
  return out;
}

function LogLines({ lines, query }: { lines: ShownLine[]; query: string }) {
  const [follow, setFollow] = useState(true);
  const box = useRef<HTMLDivElement>(null);
  const needle = query.trim().toLowerCase();
  const shown = useMemo(() => (needle ? lines.filter((l) => l.line.toLowerCase().includes(needle)) : lines), [lines, needle]);

  useEffect(() => {
    if (follow && box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [shown, follow]);

  return (
    <>
      <label className="inline">
        <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} /> Follow
      </label>
      <span className="muted">
        {' '}
        {needle ? `${shown.length} of ${lines.length} lines match` : `${lines.length} lines`}
      </span>
      {shown.length === 0 ? (
        <p className="empty">{lines.length === 0 ? 'Nothing printed yet.' : 'No line matches.'}</p>
      ) : (
        <div className="log-box" ref={box} tabIndex={0} role="log" aria-label="Log lines">
          {shown.map((l) => (
            <div key={l.key} className={`log-line log-${l.stream}`}>
              <span className="log-meta">
                {l.at.slice(11, 23)} {l.attemptId.slice(l.attemptId.lastIndexOf('#'))}
              </span>{' '}
              <Highlighted text={l.line} needle={needle} />
            </div>
          ))}
        </div>
      )}
    </>
  );
}

function Highlighted({ text, needle }: { text: string; needle: string }) {
  if (!needle) return <>{text}</>;
  const i = text.toLowerCase().indexOf(needle);
  if (i < 0) return <>{text}</>;
  return (
    <>
      {text.slice(0, i)}
      <mark>{text.slice(i, i + needle.length)}</mark>
      {text.slice(i + needle.length)}
    </>
  );
}

/**
 * What the run's attempts printed: the kept log (operators) plus the lines streaming in live,
 * searchable, following the end while Follow is on.
 */
export function RunLogs({ runId, live }: { runId: string; live: RunLogLine[] }) {
  const { identity } = useSession();
  const mayRead = can(identity?.role, 'readRunLogs');
  const logs = useApiQuery<RunLogsAnswer>(`/api/tasks/runs/${segment(runId)}/logs`, { enabled: mayRead });
  const [query, setQuery] = useState('');
  const search = (
    <div className="row">
      <label htmlFor="log-search">Search logs</label>
      <input id="log-search" type="search" value={query} onChange={(e) => setQuery(e.target.value)} />
    </div>
  );
  if (!mayRead) {
    return (
      <>
        <p className="muted">The kept log needs the operator role; lines printed while this page is open show here.</p>
        {search}
        <LogLines lines={mergeLines(undefined, live)} query={query} />
      </>
    );
  }
  return (
    <QueryView query={logs} label="logs">
      {(kept) => {
        const silent = silentAttemptsNote(kept, live);
        return (
          <>
            {kept.attempts.some((a) => a.truncated > 0) && <p className="muted">Older lines were dropped to keep the log bounded.</p>}
            {silent && <p className="muted">{silent}</p>}
            {search}
            <LogLines lines={mergeLines(kept, live)} query={query} />
          </>
        );
      }}
    </QueryView>
  );
}
