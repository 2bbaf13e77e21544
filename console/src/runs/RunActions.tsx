import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useApiMutation } from '../api/hooks.js';
import type { RunView, TriggerAnswer } from '../api/types.js';
import { can } from '../auth/roles.js';
import { useSession } from '../auth/session.js';
import { ErrorNotice } from '../components/common.js';
import { segment } from '../lib/query-string.js';
import { CopyCurl } from './CopyCurl.js';
import { isAwaitingApproval } from './held.js';

const isTerminal = (status: string) => status === 'success' || status === 'failed' || status === 'cancelled';

/** What cancelling does to this run, said before the operator confirms. */
function cancelConsequence(run: RunView): string {
  if (isAwaitingApproval(run)) return 'It will never run: its approval request is withdrawn.';
  if (run.status === 'running') return 'Its work is stopped where it is; what it already changed stays changed.';
  if (run.status === 'retrying') return 'Its scheduled retry will not happen.';
  return 'It leaves the queue without running.';
}

/**
 * Cancel asks first: the first press only shows what cancelling does and a confirm button, so a
 * stray click stops nothing. Cancelling cannot be undone (a rerun starts a new run).
 */
function CancelAction({ run }: { run: RunView }) {
  const [reason, setReason] = useState('');
  const [confirming, setConfirming] = useState(false);
  const cancel = useApiMutation<{ reason?: string }, { runId: string; status: string }>(() => `/api/tasks/runs/${segment(run.runId)}/cancel`);
  const body = reason.trim() ? { reason: reason.trim() } : {};
  const cancelling = run.cancellation !== null && run.status === 'running';
  return (
    <form
      className="action"
      aria-label="Cancel run"
      onSubmit={(e) => {
        e.preventDefault();
        if (!confirming) return setConfirming(true);
        setConfirming(false);
        cancel.mutate(body);
      }}
    >
      <label htmlFor="cancel-reason">Reason (optional)</label>
      <input id="cancel-reason" value={reason} maxLength={1000} onChange={(e) => setReason(e.target.value)} />
      {confirming ? (
        <div className="confirm" role="group" aria-label="Confirm cancel">
          <p>
            Cancel run <span className="mono">{run.runId}</span>? {cancelConsequence(run)} This cannot be undone.
          </p>
          <div className="row">
            <button type="submit" className="danger" autoFocus>
              Confirm cancel
            </button>
            <button type="button" className="secondary" onClick={() => setConfirming(false)}>
              Keep the run
            </button>
          </div>
        </div>
      ) : (
        <div className="row">
          <button type="submit" className="danger" disabled={cancel.isPending || cancelling}>
            {cancelling ? 'Cancelling…' : 'Cancel run…'}
          </button>
          <CopyCurl method="POST" path={`/api/tasks/runs/${segment(run.runId)}/cancel`} body={body} />
        </div>
      )}
      {cancel.data && (
        <p role="status">
          Cancel requested: {cancel.data.body.status}
        </p>
      )}
      {cancel.error && <ErrorNotice error={cancel.error} />}
    </form>
  );
}

function RerunAction({ run }: { run: RunView }) {
  const [open, setOpen] = useState(false);
  const [payloadText, setPayloadText] = useState(() => JSON.stringify(withoutKey(run.payload), null, 2));
  const [formError, setFormError] = useState<string | null>(null);
  const rerun = useApiMutation<{ payload: Record<string, unknown> }, TriggerAnswer>(() => `/api/tasks/runs/${segment(run.runId)}/rerun`);
  const parsed = parsePayload(payloadText);

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!parsed.ok) return setFormError(parsed.error);
    setFormError(null);
    rerun.mutate({ payload: parsed.payload });
  }

  if (!open) {
    return (
      <div className="action">
        <button type="button" onClick={() => setOpen(true)} aria-expanded="false">
          Rerun…
        </button>
      </div>
    );
  }
  return (
    <form className="action" aria-label="Rerun" onSubmit={submit}>
      <label htmlFor="rerun-payload">Payload for the rerun (JSON object; fields replace the original's)</label>
      <textarea id="rerun-payload" rows={8} spellCheck={false} value={payloadText} onChange={(e) => setPayloadText(e.target.value)} />
      <div className="row">
        <button type="submit" disabled={rerun.isPending}>
          {rerun.isPending ? 'Sending…' : 'Send rerun'}
        </button>
        <button type="button" className="secondary" onClick={() => setOpen(false)} aria-expanded="true">
          Close
        </button>
        <CopyCurl method="POST" path={`/api/tasks/runs/${segment(run.runId)}/rerun`} body={parsed.ok ? { payload: parsed.payload } : {}} />
      </div>
      {formError && (
        <p className="error" role="alert">
          {formError}
        </p>
      )}
      {rerun.error && <ErrorNotice error={rerun.error} />}
      {rerun.data && (
        <p role="status" className="outcome">
          Rerun {rerun.data.body.status}: <Link to={`/runs/${segment(rerun.data.body.runId)}`}>{rerun.data.body.runId}</Link>
        </p>
      )}
    </form>
  );
}

function DecideAction({ run }: { run: RunView }) {
  const [note, setNote] = useState('');
  const decide = useApiMutation<{ decision: 'approved' | 'rejected'; note?: string }, unknown>(() => `/api/approvals/${segment(run.taskId)}/decision`);
  const send = (decision: 'approved' | 'rejected') => decide.mutate(note.trim() ? { decision, note: note.trim() } : { decision });
  return (
    <form className="action" aria-label="Approval decision" onSubmit={(e) => e.preventDefault()}>
      <p>
        Held for approval{run.approval.reason ? `: ${run.approval.reason}` : ''}
        {run.approval.requestedBy ? <span className="muted"> (asked by {run.approval.requestedBy})</span> : null}
      </p>
      <label htmlFor="decision-note">Note (optional)</label>
      <input id="decision-note" value={note} maxLength={2000} onChange={(e) => setNote(e.target.value)} />
      <div className="row">
        <button type="button" disabled={decide.isPending} onClick={() => send('approved')}>
          Approve
        </button>
        <button type="button" className="danger" disabled={decide.isPending} onClick={() => send('rejected')}>
          Reject
        </button>
        <CopyCurl method="POST" path={`/api/approvals/${segment(run.taskId)}/decision`} body={{ decision: 'approved', ...(note.trim() ? { note: note.trim() } : {}) }} />
      </div>
      {decide.error && <ErrorNotice error={decide.error} />}
      {decide.isSuccess && <p role="status">Decision recorded.</p>}
    </form>
  );
}

function withoutKey(payload: Record<string, unknown>): Record<string, unknown> {
  const { idempotencyKey: _key, ...rest } = payload;
  return rest;
}

function parsePayload(text: string): { ok: true; payload: Record<string, unknown> } | { ok: false; error: string } {
  try {
    const value: unknown = JSON.parse(text.trim() === '' ? '{}' : text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, error: 'The payload must be a JSON object.' };
    return { ok: true, payload: value as Record<string, unknown> };
  } catch (err) {
    return { ok: false, error: `The payload is not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** What the signed-in role may do to this run now; controls it may not use are not rendered. */
export function RunActions({ run }: { run: RunView }) {
  const { identity } = useSession();
  const role = identity?.role;
  const canCancel = can(role, 'cancelRun') && !isTerminal(run.status);
  const canDecide = can(role, 'decideApproval') && isAwaitingApproval(run);
  const canRerun = can(role, 'rerunRun') && !run.internal;
  return (
    <section aria-labelledby="actions-heading" className="panel">
      <h2 id="actions-heading">Actions</h2>
      {canDecide && <DecideAction run={run} />}
      {canCancel && <CancelAction run={run} />}
      {canRerun && <RerunAction key={run.runId} run={run} />}
      <div className="action">
        <p className="muted">Read this run from a shell:</p>
        <CopyCurl method="GET" path={`/api/tasks/runs/${segment(run.runId)}`} />
      </div>
    </section>
  );
}
