import { Link } from 'react-router';
import { useState } from 'react';
import { useApiMutation } from '../api/hooks.js';
import type { RunView } from '../api/types.js';
import { ErrorNotice } from '../components/common.js';
import { segment } from '../lib/query-string.js';
import { isAwaitingApproval } from './held.js';

type BulkAction = 'cancel' | 'rerun';

/** One run's line of a bulk answer (POST /api/tasks/bulk/cancel and /rerun). */
interface BulkRunOutcome {
  runId: string;
  outcome: string;
  reason?: string;
  newRunId?: string | null;
}
interface BulkAnswer {
  matched: number;
  runs: BulkRunOutcome[];
}

const WORDS: Record<BulkAction, { button: string; confirm: string; consequence: string; done: string }> = {
  cancel: {
    button: 'Cancel selected…',
    confirm: 'Confirm cancel',
    consequence: 'Queued and held runs leave the queue without running; running ones are stopped where they are. Finished runs are left as they are. This cannot be undone.',
    done: 'Cancel',
  },
  rerun: {
    button: 'Rerun selected…',
    confirm: 'Confirm rerun',
    consequence: "Each becomes a new run of its type with the original's payload; approval-gated types wait for approval again.",
    done: 'Rerun',
  },
};

const plural = (n: number) => (n === 1 ? '1 run' : `${n} runs`);

/**
 * Acts on the runs selected in the list: one request to the bulk route with their exact ids, so
 * each goes through the single-run cancel or rerun. Nothing is sent before a confirmation that
 * names how many runs and which.
 */
export function BulkRunActions({ selected, onClear, onDone }: { selected: RunView[]; onClear: () => void; onDone: () => void }) {
  const [confirming, setConfirming] = useState<BulkAction | null>(null);
  const [lastAction, setLastAction] = useState<BulkAction>('cancel');
  const bulk = useApiMutation<{ action: BulkAction; runIds: string[] }, BulkAnswer>(
    (input) => `/api/tasks/bulk/${input.action}`,
    (input) => ({ runIds: input.runIds }),
  );
  const count = selected.length;

  function confirm(action: BulkAction) {
    setConfirming(null);
    setLastAction(action);
    bulk.mutate({ action, runIds: selected.map((r) => r.runId) }, { onSuccess: onDone });
  }

  return (
    <section className="bulk-actions" aria-label="Selected runs">
      {count > 0 && confirming === null && (
        <div className="row">
          <span className="bulk-count" role="status">
            {plural(count)} selected
          </span>
          <button type="button" className="danger" disabled={bulk.isPending} onClick={() => setConfirming('cancel')}>
            {WORDS.cancel.button}
          </button>
          <button type="button" disabled={bulk.isPending} onClick={() => setConfirming('rerun')}>
            {WORDS.rerun.button}
          </button>
          <button type="button" className="secondary" onClick={onClear}>
            Clear selection
          </button>
        </div>
      )}
      {confirming !== null && (
        <div className="confirm" role="group" aria-label={`Confirm ${confirming} of selected runs`}>
          <p>
            {confirming === 'cancel' ? 'Cancel' : 'Rerun'} {plural(count)}? {WORDS[confirming].consequence}
          </p>
          <ul className="bulk-names">
            {selected.map((r) => (
              <li key={r.runId}>
                <span className="mono">{r.runId}</span> <span className="muted">({r.type}, {isAwaitingApproval(r) ? 'awaiting approval' : r.status})</span>
              </li>
            ))}
          </ul>
          <div className="row">
            <button type="button" className={confirming === 'cancel' ? 'danger' : undefined} autoFocus onClick={() => confirm(confirming)}>
              {WORDS[confirming].confirm} of {plural(count)}
            </button>
            <button type="button" className="secondary" onClick={() => setConfirming(null)}>
              Go back
            </button>
          </div>
        </div>
      )}
      {bulk.error && <ErrorNotice error={bulk.error} />}
      {bulk.data && (
        <div role="status" className="bulk-outcome">
          <p>
            {WORDS[lastAction].done}: {plural(bulk.data.body.runs.length)}
          </p>
          <ul className="bulk-names">
            {bulk.data.body.runs.map((r) => (
              <li key={r.runId}>
                <span className="mono">{r.runId}</span>: {r.outcome}
                {r.newRunId ? (
                  <>
                    {' '}
                    as <Link to={`/runs/${segment(r.newRunId)}`}>{r.newRunId}</Link>
                  </>
                ) : null}
                {r.reason ? <span className="muted"> ({r.reason})</span> : null}
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
