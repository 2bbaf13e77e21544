import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { apiRequest } from '../api/client.js';
import { useApiQuery } from '../api/hooks.js';
import { can } from '../auth/roles.js';
import { useSession } from '../auth/session.js';
import { ErrorNotice, StatusBadge } from '../components/common.js';
import { RecordView } from '../components/RecordView.js';
import { EmptyState, Loadable, Section } from '../components/states.js';
import { Duration, RelativeTime } from '../components/Time.js';

/** The fields of `GET /api/knowledge/summary` the page reads; the rest is shown as a record. */
interface KnowledgeSummary {
  status: string;
  generatedAt: string;
  diagnostics: {
    freshness: { status?: string; docCount?: number; fresh?: number; aging?: number; stale?: number; staleDocs?: unknown[]; oldestAgeDays?: number | null };
    provenance: { indexerVersion?: string; commit?: string | null; builtAt?: string };
    contradictionSignals: unknown[];
  };
  runtime: {
    index: { indexedEntries?: number; chunkCount?: number; conceptCount?: number; lastRefreshAt?: string; docsFolderExists?: boolean };
    coverage: { ratio?: number; brokenLinkCount?: number; discoveredFiles?: number; indexedDocs?: number };
    freshness: { indexAgeMs?: number };
    repairLoop: Record<string, unknown> | null;
  };
}

interface SearchResult {
  query: string;
  total: number;
  results: { path: string; title: string; score: number; heading: string; snippet: string }[];
}

function Search() {
  const { token } = useSession();
  const [text, setText] = useState('');
  const search = useMutation({
    mutationFn: async (query: string) => (await apiRequest<SearchResult>('/api/knowledge/query', { token, method: 'POST', body: { query, limit: 10 } })).body,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (text.trim()) search.mutate(text.trim());
  };
  return (
    <>
      <form className="filters" role="search" aria-label="Search the knowledge index" onSubmit={submit}>
        <label htmlFor="knowledge-query">Search</label>
        <input id="knowledge-query" type="search" value={text} maxLength={5000} onChange={(e) => setText(e.target.value)} />
        <button type="submit" disabled={search.isPending || text.trim() === ''}>
          Search
        </button>
      </form>
      {search.error && <ErrorNotice error={search.error} />}
      {search.data &&
        (search.data.total === 0 ? (
          <EmptyState>Nothing in the index matches “{search.data.query}”.</EmptyState>
        ) : (
          <ol className="cards" aria-label="Search results">
            {search.data.results.map((r) => (
              <li key={`${r.path}#${r.heading}`} className="card">
                <strong>{r.title}</strong> <span className="muted">— {r.heading}</span>
                <div className="hint mono wrap-anywhere">{r.path}</div>
                <p>{r.snippet}</p>
              </li>
            ))}
          </ol>
        ))}
    </>
  );
}

export function KnowledgePage() {
  const { identity } = useSession();
  const summary = useApiQuery<KnowledgeSummary>('/api/knowledge/summary', { refetchInterval: 60_000 });
  return (
    <>
      <h1>Knowledge</h1>
      <Loadable query={summary} label="knowledge summary">
        {(k) => {
          const f = k.diagnostics.freshness;
          const idx = k.runtime.index;
          return (
            <>
              <p>
                Index <StatusBadge status={k.status} /> built <RelativeTime iso={k.diagnostics.provenance.builtAt} /> by {k.diagnostics.provenance.indexerVersion ?? 'the indexer'}
                {k.diagnostics.provenance.commit ? ` at ${k.diagnostics.provenance.commit.slice(0, 12)}` : ''}
              </p>
              {idx.docsFolderExists === false && <p className="notice">The docs folder does not exist, so the index is empty.</p>}
              <ul className="stats" aria-label="Index summary">
                <li className="stat">
                  <span className="stat-value">{idx.indexedEntries ?? 0}</span>
                  <span className="stat-label">documents indexed</span>
                </li>
                <li className="stat">
                  <span className="stat-value">{idx.chunkCount ?? 0}</span>
                  <span className="stat-label">chunks</span>
                </li>
                <li className="stat">
                  <span className="stat-value">{idx.conceptCount ?? 0}</span>
                  <span className="stat-label">concepts</span>
                </li>
                <li className="stat">
                  <span className="stat-value">{Math.round((k.runtime.coverage.ratio ?? 0) * 100)} %</span>
                  <span className="stat-label">coverage</span>
                </li>
                <li className="stat">
                  <span className="stat-value">{k.runtime.coverage.brokenLinkCount ?? 0}</span>
                  <span className="stat-label">broken links</span>
                </li>
              </ul>
              <Section id="freshness" title="Freshness">
                <p>
                  <StatusBadge status={f.status ?? 'unknown'} /> {f.fresh ?? 0} fresh, {f.aging ?? 0} aging, {f.stale ?? 0} stale of {f.docCount ?? 0} documents; index
                  age <Duration ms={k.runtime.freshness.indexAgeMs} />.
                </p>
                {f.staleDocs && f.staleDocs.length > 0 && <RecordView value={f.staleDocs} caption="Stale documents" />}
              </Section>
              {k.runtime.repairLoop && (
                <Section id="repair-loop" title="Repair loop">
                  <RecordView value={k.runtime.repairLoop} />
                </Section>
              )}
              {k.diagnostics.contradictionSignals.length > 0 && (
                <Section id="contradictions" title="Contradictions">
                  <RecordView value={k.diagnostics.contradictionSignals} />
                </Section>
              )}
            </>
          );
        }}
      </Loadable>
      <Section id="search" title="Search">
        {can(identity?.role, 'searchKnowledge') ? <Search /> : <p className="muted">Searching the index needs the operator role; this key is {identity?.role}.</p>}
      </Section>
    </>
  );
}
