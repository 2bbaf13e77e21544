import { lazy, Suspense } from 'react';
import type { RunView } from '../api/types.js';
import { StatusBadge } from '../components/common.js';
import { FindingsTable } from './FindingsTable.js';
import { ResultTree } from './ResultTree.js';
import { resultFields, resultViewOf, SHOWN_ELSEWHERE, type Gate } from './result-kinds.js';
import { TestVerdicts } from './TestVerdicts.js';

const MarkdownText = lazy(() => import('./MarkdownText.js'));

function GatesView({ posture, gates }: { posture: string | null; gates: Gate[] }) {
  return (
    <>
      {posture && (
        <p>
          Release posture <StatusBadge status={posture} />
        </p>
      )}
      <ul className="gates" aria-label="Release gates">
        {gates.map((g) => (
          <li key={g.gate}>
            <StatusBadge status={g.status} /> <strong>{g.gate}</strong> <span className="muted">{g.evidence}</span>
          </li>
        ))}
      </ul>
    </>
  );
}

/** What the run found, for people: the summary, the next actions, then a view fitted to the result's kind. */
export function RunResult({ run }: { run: RunView }) {
  const view = resultViewOf(run.type, run.result);
  const fields = resultFields(run.result);
  const actions = run.recommendedNextActions ?? [];
  const hasResult = run.result !== null && run.result !== undefined;
  return (
    <section aria-labelledby="result-heading" className="panel">
      <h2 id="result-heading">Result</h2>
      {run.operatorSummary ? <p className="summary">{run.operatorSummary}</p> : null}
      {run.error && (
        <p className="error">
          {run.failureReason ? <strong>{run.failureReason}: </strong> : null}
          {run.error}
        </p>
      )}
      {actions.length > 0 && (
        <>
          <h3>Recommended next actions</h3>
          <ul aria-label="Recommended next actions">
            {actions.map((a) => (
              <li key={a}>{a}</li>
            ))}
          </ul>
        </>
      )}
      {!hasResult && !run.operatorSummary && !run.error && <p className="empty">No result yet.</p>}
      {hasResult && view.kind === 'findings' && <FindingsTable rows={view.rows} caption={view.caption} />}
      {hasResult && view.kind === 'tests' && <TestVerdicts verdict={view.verdict} />}
      {hasResult && view.kind === 'gates' && <GatesView posture={view.posture} gates={view.gates} />}
      {hasResult && view.kind === 'text' && (
        <article aria-label="Generated text" className="generated">
          {view.text.title && <h3>{view.text.title}</h3>}
          {view.text.facts.length > 0 && (
            <p className="muted">{view.text.facts.map((f) => `${f.label}: ${f.value}`).join(' · ')}</p>
          )}
          <Suspense fallback={<p role="status">Loading text…</p>}>
            <MarkdownText markdown={view.text.markdown} />
          </Suspense>
        </article>
      )}
      {hasResult && (
        <details className="all-fields" open={view.kind === 'tree'}>
          <summary>{view.kind === 'tree' ? 'Result fields' : 'All result fields'}</summary>
          <ResultTree value={fields ?? run.result} omit={SHOWN_ELSEWHERE} />
        </details>
      )}
    </section>
  );
}
