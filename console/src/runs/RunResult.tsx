import { lazy, Suspense } from 'react';
import type { RunView } from '../api/types.js';
import { StatusBadge } from '../components/common.js';
import { FindingsTable } from './FindingsTable.js';
import { ResultTree } from './ResultTree.js';
import { useApiQuery } from '../api/hooks.js';
import { CATALOG_PATH, type Catalog } from '../lib/catalog.js';
import { resultFacts, resultFields, resultViewOf, SHOWN_ELSEWHERE, type Gate, type ResultViewSpec } from './result-kinds.js';
import { TestVerdicts } from './TestVerdicts.js';

const MarkdownText = lazy(() => import('./MarkdownText.js'));

function GatesView({ posture, gates }: { posture: string | null; gates: Gate[] }) {
  return (
    <>
      {posture && (
        <p>
          Posture <StatusBadge status={posture} />
        </p>
      )}
      <ul className="gates" aria-label="Gates">
        {gates.map((g) => (
          <li key={g.gate}>
            <StatusBadge status={g.status} /> <strong>{g.gate}</strong> <span className="muted">{g.evidence}</span>
          </li>
        ))}
      </ul>
    </>
  );
}

/** The verdict, numbers and artifacts the type's view names, as one line of labelled facts. */
function ResultFacts({ spec, result, showVerdict }: { spec: ResultViewSpec | undefined; result: unknown; showVerdict: boolean }) {
  const { verdict, metrics, artifacts } = resultFacts(spec, result);
  const facts = [...metrics, ...artifacts];
  if ((!verdict || !showVerdict) && facts.length === 0) return null;
  return (
    <dl className="result-facts">
      {verdict && showVerdict && (
        <>
          <dt>Verdict</dt>
          <dd>
            <StatusBadge status={verdict} />
          </dd>
        </>
      )}
      {facts.map((f) => (
        <span key={f.label}>
          <dt>{f.label}</dt>
          <dd>{f.value}</dd>
        </span>
      ))}
    </dl>
  );
}

/** What the run found, for people: the summary, the next actions, then a view fitted to the result's kind. */
export function RunResult({ run }: { run: RunView }) {
  // The catalog lists each public type's result view; an internal type's result is shown as a tree.
  const catalog = useApiQuery<Catalog>(CATALOG_PATH);
  const spec = catalog.data?.tasks.find((t) => t.type === run.type)?.resultView;
  const view = resultViewOf(spec, run.result);
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
      {hasResult && <ResultFacts spec={spec} result={run.result} showVerdict={view.kind !== 'gates' && view.kind !== 'tests'} />}
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
