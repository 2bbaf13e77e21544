import type { TestVerdict } from './result-kinds.js';

const GOOD = new Set(['passed', 'healthy', 'green', 'stable']);

/** A test run's verdict, its counts, and each failing test with its message. */
export function TestVerdicts({ verdict }: { verdict: TestVerdict }) {
  const tone = GOOD.has(verdict.verdict) ? 'success' : verdict.failed ? 'failed' : 'warning';
  return (
    <section aria-label="Test verdict" className="verdict">
      <p>
        Verdict <span className={`badge badge-${tone}`}>{verdict.verdict}</span>
        {verdict.note && <span className="muted"> — {verdict.note}</span>}
      </p>
      {(verdict.passed !== null || verdict.failed !== null) && (
        <ul className="counts" aria-label="Test counts">
          <li className="count-passed">{verdict.passed ?? '—'} passed</li>
          <li className="count-failed">{verdict.failed ?? '—'} failed</li>
          <li className="count-skipped">{verdict.skipped ?? '—'} skipped</li>
        </ul>
      )}
      {verdict.failures.length > 0 && (
        <>
          <h4>Failing tests</h4>
          <ul className="failures" aria-label="Failing tests">
            {verdict.failures.map((f, i) => (
              <li key={`${f.name}|${i}`}>
                <strong>{f.name}</strong>
                {f.where && <span className="muted mono"> {f.where}</span>}
                {f.message ? (
                  <pre className="leaf-text" role="region" aria-label={`Message of ${f.name}`} tabIndex={0}>
                    {f.message}
                  </pre>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      )}
      {verdict.outputTail && verdict.failures.length > 0 && (
        <details>
          <summary>End of the suite's output</summary>
          <pre className="leaf-text" role="region" aria-label="End of the suite's output" tabIndex={0}>
            {verdict.outputTail}
          </pre>
        </details>
      )}
    </section>
  );
}
