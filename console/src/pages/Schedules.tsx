import { useMemo, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useApiQuery } from '../api/hooks.js';
import { useApiWrite } from '../api/write.js';
import { can } from '../auth/roles.js';
import { useSession } from '../auth/session.js';
import { ErrorNotice, StatusBadge } from '../components/common.js';
import { Loadable, Section } from '../components/states.js';
import { RelativeTime } from '../components/Time.js';
import type { ScheduleCreate, ScheduleList, SchedulePatch, ScheduleView } from '../lib/api-types.js';
import { CATALOG_PATH, type Catalog } from '../lib/catalog.js';
import { checkCron, describeCron } from '../lib/cron.js';
import { segment } from '../lib/query-string.js';
import { formatUtc } from '../lib/time.js';
import { payloadTemplate } from '../lib/trigger-body.js';

const PATH = '/api/schedules';

interface FormState {
  id: string;
  cron: string;
  timezone: string;
  type: string;
  payloadText: string;
  overlap: ScheduleView['overlap'];
  catchUp: ScheduleView['catchUp'];
  enabled: boolean;
}

const blank: FormState = { id: '', cron: '0 2 * * *', timezone: 'UTC', type: '', payloadText: '{}', overlap: 'skip', catchUp: 'skip', enabled: true };

function formOf(s: ScheduleView): FormState {
  return { id: s.id, cron: s.cron, timezone: s.timezone, type: s.type ?? '', payloadText: JSON.stringify(s.payload, null, 2), overlap: s.overlap, catchUp: s.catchUp, enabled: s.enabled };
}

function parsePayload(text: string): { ok: true; payload: Record<string, unknown> } | { ok: false; error: string } {
  if (text.trim() === '') return { ok: true, payload: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, error: 'The payload must be a JSON object.' };
    return { ok: true, payload: value as Record<string, unknown> };
  } catch (err) {
    return { ok: false, error: `The payload is not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** Create (no `editing`) or edit one user schedule; the cron is checked on every keystroke. */
function ScheduleForm({ editing, onDone }: { editing: ScheduleView | null; onDone: (message: string) => void }) {
  const catalog = useApiQuery<Catalog>(CATALOG_PATH);
  const types = (catalog.data?.tasks ?? []).filter((t) => t.publicTriggerable);
  const [form, setForm] = useState<FormState>(() => (editing ? formOf(editing) : blank));
  const set = <K extends keyof FormState>(key: K, value: FormState[K]) => setForm((f) => ({ ...f, [key]: value }));
  const check = useMemo(() => checkCron(form.cron, form.timezone), [form.cron, form.timezone]);
  const payload = parsePayload(form.payloadText);
  const create = useApiWrite<ScheduleCreate, ScheduleView>('POST', () => PATH, (b) => b);
  const patch = useApiWrite<SchedulePatch, ScheduleView>('PATCH', () => `${PATH}/${segment(editing?.id ?? '')}`, (b) => b);
  const write = editing ? patch : create;
  const cronProblem = check.problems.find((p) => p.field === 'cron');
  const zoneProblem = check.problems.find((p) => p.field === 'timezone');
  const type = form.type || types[0]?.type || '';

  const chooseType = (next: string) => {
    const entry = types.find((t) => t.type === next);
    setForm((f) => ({ ...f, type: next, payloadText: editing ? f.payloadText : payloadTemplate(entry?.payloadSchema) }));
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (check.problems.length > 0 || !payload.ok || type === '') return;
    const fields = { cron: form.cron.trim(), timezone: form.timezone.trim(), type, payload: payload.payload, overlap: form.overlap, catchUp: form.catchUp, enabled: form.enabled };
    if (editing) {
      patch.mutate(fields, { onSuccess: ({ body }) => onDone(`Saved schedule ${body.id}.`) });
    } else {
      create.mutate(form.id.trim() ? { id: form.id.trim(), ...fields } : fields, { onSuccess: ({ body }) => onDone(`Created schedule ${body.id}.`) });
    }
  };

  return (
    <form className="card" aria-label={editing ? `Edit schedule ${editing.id}` : 'New schedule'} onSubmit={submit}>
      <h2>{editing ? `Edit ${editing.id}` : 'New schedule'}</h2>
      <div className="form-grid">
        {!editing && (
          <label>
            Schedule id (optional)
            <input value={form.id} maxLength={100} pattern="[A-Za-z0-9][A-Za-z0-9._\-]*" onChange={(e) => set('id', e.target.value)} />
          </label>
        )}
        <label>
          Cron expression
          <input
            value={form.cron}
            className="mono"
            aria-invalid={cronProblem ? 'true' : 'false'}
            aria-describedby="cron-check"
            onChange={(e) => set('cron', e.target.value)}
          />
          <span id="cron-check" className={cronProblem ? 'field-error' : 'hint'} aria-live="polite">
            {cronProblem ? `Cron ${cronProblem.message}` : (check.words ?? '')}
          </span>
        </label>
        <label>
          Time zone
          <input value={form.timezone} aria-invalid={zoneProblem ? 'true' : 'false'} aria-describedby="zone-check" onChange={(e) => set('timezone', e.target.value)} />
          <span id="zone-check" className="field-error">
            {zoneProblem?.message ?? ''}
          </span>
        </label>
        <label>
          Task type
          <select value={type} onChange={(e) => chooseType(e.target.value)}>
            {types.map((t) => (
              <option key={t.type} value={t.type}>
                {t.type}
              </option>
            ))}
          </select>
        </label>
        <label>
          While the previous run is unfinished
          <select value={form.overlap} onChange={(e) => set('overlap', e.target.value as FormState['overlap'])}>
            <option value="skip">skip this firing</option>
            <option value="allow">run beside it</option>
            <option value="cancel-previous">cancel the previous run</option>
          </select>
        </label>
        <label>
          After downtime
          <select value={form.catchUp} onChange={(e) => set('catchUp', e.target.value as FormState['catchUp'])}>
            <option value="skip">skip missed firings</option>
            <option value="once">run the latest missed once</option>
          </select>
        </label>
      </div>
      {check.next.length > 0 && (
        <p className="hint" aria-label="Next fire times">
          Next: {check.next.map((d) => formatUtc(d.toISOString())).join(' · ')}
        </p>
      )}
      <div className="stack">
        <label htmlFor="schedule-payload">Payload (JSON object)</label>
        <textarea id="schedule-payload" rows={5} value={form.payloadText} aria-invalid={payload.ok ? 'false' : 'true'} onChange={(e) => set('payloadText', e.target.value)} />
        {!payload.ok && <span className="field-error">{payload.error}</span>}
        <label className="inline">
          <input type="checkbox" checked={form.enabled} onChange={(e) => set('enabled', e.target.checked)} /> Enabled
        </label>
      </div>
      <div className="actions">
        <button type="submit" disabled={write.isPending || check.problems.length > 0 || !payload.ok || type === ''}>
          {editing ? 'Save schedule' : 'Create schedule'}
        </button>
        <button type="button" className="secondary" onClick={() => onDone('')}>
          Cancel
        </button>
      </div>
      {write.error && <ErrorNotice error={write.error} />}
    </form>
  );
}

function ScheduleRow({ s, mayWrite, onEdit, onMessage }: { s: ScheduleView; mayWrite: boolean; onEdit: () => void; onMessage: (m: string) => void }) {
  const [confirming, setConfirming] = useState(false);
  const toggle = useApiWrite<{ enabled: boolean }, ScheduleView>('PATCH', () => `${PATH}/${segment(s.id)}`, (b) => b);
  const remove = useApiWrite<void, null>('DELETE', () => `${PATH}/${segment(s.id)}`);
  const words = describeCron(s.cron, s.timezone) ?? s.cron;
  return (
    <tr>
      <td className="nowrap">
        <strong>{s.id}</strong>
        {s.builtIn && <div className="hint">built in</div>}
      </td>
      <td>
        <code>{s.flow ? `flow (${s.flow.steps.length} steps)` : s.type}</code>
      </td>
      <td className="full" data-label="When">
        {words}
        <div className="hint mono">{s.cron}</div>
      </td>
      <td className="full" data-label="Next fire">
        {s.nextRunAt.length === 0 ? (
          <span className="muted">not scheduled</span>
        ) : (
          <>
            <RelativeTime iso={s.nextRunAt[0]} />
            <ul className="hint" aria-label={`Next fire times of ${s.id}`}>
              {s.nextRunAt.slice(0, 3).map((t) => (
                <li key={t}>
                  <time dateTime={t}>{formatUtc(t)}</time>
                </li>
              ))}
            </ul>
          </>
        )}
      </td>
      <td className="full" data-label="Last run">
        {s.lastRunId ? (
          <>
            <Link to={`/runs/${segment(s.lastRunId)}`} className="wrap-anywhere">
              {s.lastRunId}
            </Link>
            <div className="hint">
              <RelativeTime iso={s.lastFiredAt} />
            </div>
          </>
        ) : (
          <span className="muted">never</span>
        )}
        {s.lastSkippedAt && (
          <div className="hint">
            skipped <RelativeTime iso={s.lastSkippedAt} />: {s.lastSkipReason}
          </div>
        )}
      </td>
      <td>
        <StatusBadge status={s.enabled ? 'enabled' : 'paused'} />
      </td>
      {mayWrite && (
        <td className="full">
          {!s.builtIn && (
            <div className="actions">
              {/* The form edits a type and payload; a flow schedule is changed through the API. */}
              {!s.flow && (
                <button type="button" className="secondary" onClick={onEdit}>
                  Edit
                </button>
              )}
              <button
                type="button"
                className="secondary"
                disabled={toggle.isPending}
                onClick={() => toggle.mutate({ enabled: !s.enabled }, { onSuccess: () => onMessage(`${s.enabled ? 'Paused' : 'Resumed'} schedule ${s.id}.`) })}
              >
                {s.enabled ? 'Pause' : 'Resume'}
              </button>
              {confirming ? (
                <>
                  <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.mutate(undefined, { onSuccess: () => onMessage(`Deleted schedule ${s.id}.`) })}>
                    Confirm delete
                  </button>
                  <button type="button" className="secondary" onClick={() => setConfirming(false)}>
                    Keep
                  </button>
                </>
              ) : (
                <button type="button" className="danger" onClick={() => setConfirming(true)}>
                  Delete
                </button>
              )}
            </div>
          )}
          {(toggle.error || remove.error) && <ErrorNotice error={toggle.error ?? remove.error} />}
        </td>
      )}
    </tr>
  );
}

export function SchedulesPage() {
  const { identity } = useSession();
  const mayWrite = can(identity?.role, 'writeSchedules');
  const list = useApiQuery<ScheduleList>(PATH, { refetchInterval: 15_000 });
  const [editing, setEditing] = useState<ScheduleView | 'new' | null>(null);
  const [message, setMessage] = useState('');
  const done = (m: string) => {
    setEditing(null);
    if (m) setMessage(m);
  };
  return (
    <>
      <div className="page-head">
        <h1>Schedules</h1>
        {mayWrite && editing === null && (
          <button type="button" onClick={() => setEditing('new')}>
            New schedule
          </button>
        )}
      </div>
      {message && (
        <p role="status" className="outcome">
          {message}
        </p>
      )}
      {editing !== null && <ScheduleForm key={editing === 'new' ? 'new' : editing.id} editing={editing === 'new' ? null : editing} onDone={done} />}
      <Section id="schedules" title="All schedules">
        <Loadable query={list} label="schedules" isEmpty={(d) => d.count === 0} empty="No schedules yet.">
          {(d) => (
            <div className="table-scroll" role="region" aria-label="Schedules" tabIndex={0}>
              <table className="wide stack-on-phone">
                <caption>{d.count} schedules (times in your zone; lists in UTC)</caption>
                <thead>
                  <tr>
                    <th scope="col">Schedule</th>
                    <th scope="col">Task</th>
                    <th scope="col">When</th>
                    <th scope="col">Next fire</th>
                    <th scope="col">Last run</th>
                    <th scope="col">State</th>
                    {mayWrite && <th scope="col">Actions</th>}
                  </tr>
                </thead>
                <tbody>
                  {d.schedules.map((s) => (
                    <ScheduleRow key={s.id} s={s} mayWrite={mayWrite} onEdit={() => setEditing(s)} onMessage={setMessage} />
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Loadable>
      </Section>
    </>
  );
}
