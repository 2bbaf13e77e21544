import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { runsInWords } from '../lib/labels.js';
import { useApiMutation, useApiQuery } from '../api/hooks.js';
import { can } from '../auth/roles.js';
import { useSession } from '../auth/session.js';
import { ErrorNotice, QueryView, StatusBadge } from '../components/common.js';
import { segment } from '../lib/query-string.js';
import { CATALOG_PATH, type Catalog, type CatalogEntry } from '../lib/catalog.js';
import { ScrollTable } from '../components/ScrollTable.js';
import { buildTriggerBody, fieldHelp, payloadTemplate, type PayloadSchema, type TriggerBody } from '../lib/trigger-body.js';

interface TriggerOutcome {
  status: 'queued' | 'duplicate-suppressed';
  taskId: string;
  runId: string;
  type: string;
  createdAt?: string;
  existingStatus?: string;
  reason?: string;
}

/**
 * The payload's fields and what each is for, from the type's schema. A field naming a path of
 * the workspace is left empty in the starting payload: the form says to fill it in, since the
 * schema's example names a project this workspace may not have.
 */
function PayloadFields({ schema }: { schema: PayloadSchema | null }) {
  const fields = fieldHelp(schema);
  if (fields.length === 0) {
    return (
      <p id="trigger-fields" className="hint">
        {schema?.description ?? 'This type takes no payload fields.'}
      </p>
    );
  }
  return (
    <dl id="trigger-fields" className="payload-fields" aria-label="Payload fields">
      {fields.map((f) => (
        <div key={f.name}>
          <dt>
            <code>{f.name}</code>
            {f.required && <span className="muted"> required</span>}
            {f.toFill && <span className="badge badge-attention">fill in a path of your workspace</span>}
          </dt>
          <dd>{f.description ?? <span className="muted">no description</span>}</dd>
        </div>
      ))}
    </dl>
  );
}

function TriggerForm({ entries }: { entries: CatalogEntry[] }) {
  const triggerable = entries.filter((e) => e.publicTriggerable);
  const [type, setType] = useState('');
  const [payloadText, setPayloadText] = useState('{}');
  const [idempotencyKey, setIdempotencyKey] = useState('');
  const [holdForApproval, setHoldForApproval] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);
  const trigger = useApiMutation<TriggerBody, TriggerOutcome>(() => '/api/tasks/trigger');
  const selected = triggerable.find((e) => e.type === type);

  function chooseType(next: string) {
    setType(next);
    setPayloadText(payloadTemplate(triggerable.find((e) => e.type === next)?.payloadSchema));
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const built = buildTriggerBody({ type, payloadText, idempotencyKey, holdForApproval });
    if (!built.ok) return setFormError(built.error);
    setFormError(null);
    trigger.mutate(built.body);
  }

  const outcome = trigger.data;
  return (
    <form onSubmit={submit} aria-label="Trigger a task" className="stack">
      <label htmlFor="trigger-type">Task type</label>
      <select id="trigger-type" value={type} onChange={(e) => chooseType(e.target.value)} required>
        <option value="">Choose…</option>
        {triggerable.map((e) => (
          <option key={e.type} value={e.type}>
            {e.type}
          </option>
        ))}
      </select>
      {selected && (
        <p className="muted">
          {selected.purpose ?? selected.label}
          {selected.approvalGated ? ' — approval-gated by default.' : ''}
        </p>
      )}
      <label htmlFor="trigger-payload">Payload (JSON object)</label>
      <textarea id="trigger-payload" rows={8} spellCheck={false} value={payloadText} onChange={(e) => setPayloadText(e.target.value)} aria-describedby={selected ? 'trigger-fields' : undefined} />
      {selected && <PayloadFields schema={selected.payloadSchema} />}
      <label htmlFor="trigger-key">Idempotency key (optional)</label>
      <input id="trigger-key" value={idempotencyKey} onChange={(e) => setIdempotencyKey(e.target.value)} autoComplete="off" />
      <label className="inline">
        <input type="checkbox" checked={holdForApproval} onChange={(e) => setHoldForApproval(e.target.checked)} /> Hold for approval
      </label>
      <button type="submit" disabled={trigger.isPending}>
        {trigger.isPending ? 'Triggering…' : 'Trigger'}
      </button>
      {formError && (
        <p className="error" role="alert">
          {formError}
        </p>
      )}
      {trigger.error && <ErrorNotice error={trigger.error} />}
      {outcome && (
        <div role="status" className="outcome">
          <p>
            HTTP {outcome.status} {outcome.body.status}
            {outcome.body.reason ? ` (${outcome.body.reason}, existing run ${outcome.body.existingStatus})` : ''}
          </p>
          <p>
            Run <Link to={`/runs/${segment(outcome.body.runId)}`}>{outcome.body.runId}</Link> of {outcome.body.type}
          </p>
        </div>
      )}
    </form>
  );
}

export function TasksPage() {
  const { identity } = useSession();
  const catalog = useApiQuery<Catalog>(CATALOG_PATH);
  return (
    <>
      <h1>Tasks</h1>
      <QueryView query={catalog} label="task catalog">
        {(data) => (
          <>
            <section aria-labelledby="trigger-heading">
              <h2 id="trigger-heading">Trigger</h2>
              {can(identity?.role, 'triggerTask') ? (
                <TriggerForm entries={data.tasks} />
              ) : (
                <p className="muted">Triggering needs the operator role; this key is {identity?.role}.</p>
              )}
            </section>
            <section aria-labelledby="catalog-heading">
              <h2 id="catalog-heading">Catalog</h2>
              <ScrollTable label="Task catalog" caption={`${data.count} task types`} columns={['Type', 'Purpose', 'Status', 'Runs']} className="catalog-table stack-on-phone">
                {data.tasks.map((t) => (
                  <tr key={t.type}>
                    <td className="full">
                      <strong>{t.label}</strong>
                      <div>
                        <code>{t.type}</code>
                        {t.source === 'operator' && <> <span className="badge" title="from the service's task types folder">operator</span></>}
                      </div>
                    </td>
                    <td className="full purpose">{t.purpose ?? <span className="muted">no purpose given</span>}</td>
                    <td>
                      <StatusBadge status={t.operationalStatus} /> <span className="hint">{t.dependencyClass}</span>
                      {t.approvalGated && <div className="hint">approval-gated</div>}
                    </td>
                    <td>{runsInWords(t.telemetryOverlay.totalRuns, t.telemetryOverlay.successRate)}</td>
                  </tr>
                ))}
              </ScrollTable>
            </section>
          </>
        )}
      </QueryView>
    </>
  );
}
