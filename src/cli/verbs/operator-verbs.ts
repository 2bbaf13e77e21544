import { approvalProgressOf, approvalProgressText, awaitsQuorum } from '../../runtime/approval-answer.js';
import { deepMerge, objectFromJsonFile, payloadFromAssignments } from '../assignments.js';
import { paint, statusColour, when } from '../output.js';
import { resolveApprovalId } from '../run-id.js';
import { table } from '../table.js';
import { didYouMean } from '../suggest.js';
import { UsageError } from '../usage-error.js';
import { answerVerb, EXIT, flag, flagValues, printJson, word, words, type Verb } from '../verb.js';
import type { QueueKeyView, QueuePriorityView } from '../../runtime/queue-view.js';

type Row = Record<string, unknown>;
const text = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

/** "1 of 2 approvals" where the policy asks for more than one approval; blank otherwise. */
function quorumCell(approval: Row): string {
  const progress = approvalProgressOf(approval);
  return awaitsQuorum(progress) ? approvalProgressText(progress) : '';
}

export const approvalsVerb = answerVerb({
  name: 'approvals',
  summary: 'runs held for an operator decision',
  read: (client) => client.pendingApprovals(),
  show(output, pending) {
    output.out(
      table<Row>(
        output,
        pending.pending,
        [
          { header: 'id', value: (r) => r.taskId, fit: 'wrap' },
          { header: 'type', value: (r) => r.type },
          { header: 'risk', value: (r) => (r.impact as Row | null | undefined)?.riskLevel },
          // Only where some approval needs more than one decision: otherwise the column is always empty.
          ...(pending.pending.some((r) => quorumCell(r) !== '') ? [{ header: 'approvals', value: quorumCell }] : []),
          { header: 'requested by', value: (r) => r.requestedBy, fit: 'cut' },
          { header: 'requested', value: (r) => when(r.requestedAt), fit: 'drop' },
          { header: 'expires', value: (r) => (r.expiresAt ? when(r.expiresAt) : 'never'), fit: 'drop' },
          // The same as the id unless the run was triggered with an idempotency key.
          { header: 'run', value: (r) => r.runId, fit: 'drop' },
        ],
        'Nothing waits for approval.',
      ),
    );
    return EXIT.ok;
  },
});

function decisionVerb(decision: 'approve' | 'reject'): Verb {
  return {
    name: decision,
    summary: decision === 'approve' ? 'approve a held run (it is then replayed)' : 'reject a held run (it then fails)',
    usage: `<id> [note ...]${decision === 'approve' ? ' [--input key=value ...] [--input-file f.json]' : ''}`,
    positionals: [
      { name: 'id', required: true },
      { name: 'note', required: false, rest: true },
    ],
    flags:
      decision === 'approve'
        ? [
            { name: 'input', takes: 'value', valueName: 'key=value', repeats: true, summary: 'a field of the approval input (repeat for more); merged into the replayed run' },
            { name: 'input-file', takes: 'value', valueName: 'file', summary: 'approval input from a JSON file (--input fields override its fields)' },
          ]
        : [],
    details: [
      "<id> is the approval's id as 'orch approvals' lists it, or its first 8 or more characters.",
      ...(decision === 'approve'
        ? ["The service checks the input against the type's approval input schema ('orch approvals --json' shows approvalInputSchema)."]
        : []),
    ],
    async run({ args, output, client }) {
      const note = words(args, 'note').join(' ');
      const input = deepMerge(objectFromJsonFile(flag(args, 'input-file'), '--input-file'), payloadFromAssignments(flagValues(args, 'input')));
      const api = client();
      const id = await resolveApprovalId(api, word(args, 'id'));
      const answer = await api.decide(id, decision, note === '' ? undefined : note, input);
      if (output.json) return printJson(output, answer);
      const approval = answer.approval as Row | undefined;
      if (approval?.status === 'pending') {
        // Recorded, short of the quorum: the run stays held until enough others approve.
        const progress = approvalProgressOf(approval);
        output.out(`${paint(output, 'yellow', 'recorded')}  ${id}  ${progress ? approvalProgressText(progress) : 'still pending'}`);
        return EXIT.ok;
      }
      const replay = typeof answer.replayRunId === 'string' ? `  replay run ${answer.replayRunId}` : '';
      output.out(`${paint(output, decision === 'approve' ? 'green' : 'red', decision === 'approve' ? 'approved' : 'rejected')}  ${id}${replay}`);
      return EXIT.ok;
    },
  };
}

export const approveVerb = decisionVerb('approve');
export const rejectVerb = decisionVerb('reject');

export const incidentsVerb = answerVerb({
  name: 'incidents',
  summary: 'open incidents, most severe first',
  read: (client) => client.incidents(),
  show(output, answer) {
    const rows = (answer.incidents ?? answer.items ?? []) as Row[];
    output.out(
      table<Row>(
        output,
        rows,
        [
          { header: 'id', value: (r) => r.incidentId, fit: 'wrap' },
          { header: 'severity', value: (r) => r.severity, colour: (r) => statusColour(text(r.severity) === 'critical' ? 'critical' : 'pending') },
          { header: 'status', value: (r) => r.status },
          { header: 'title', value: (r) => r.title, fit: 'cut', max: 60 },
          { header: 'ack', value: (r) => (r.acknowledged ? 'yes' : 'no'), fit: 'drop' },
          { header: 'owner', value: (r) => r.owner, fit: 'drop' },
          { header: 'last seen', value: (r) => when(r.lastSeenAt), fit: 'drop' },
        ],
        'No open incidents.',
      ),
    );
    return EXIT.ok;
  },
});

export const ackVerb: Verb = {
  name: 'ack',
  summary: 'acknowledge an incident',
  usage: '<id>',
  positionals: [{ name: 'id', required: true }],
  flags: [],
  async run({ args, output, client }) {
    const answer = await client().acknowledge(word(args, 'id'));
    if (output.json) return printJson(output, answer);
    output.out(`acknowledged  ${word(args, 'id')}`);
    return EXIT.ok;
  },
};

/** What a listed schedule runs: its task type, or for one that fires a flow `flow (N steps)`. */
function scheduleWork(row: Row): unknown {
  const steps = (row.flow as { steps?: unknown[] } | null | undefined)?.steps;
  return Array.isArray(steps) ? `flow (${steps.length} step${steps.length === 1 ? '' : 's'})` : row.type;
}

const SCHEDULE_ACTIONS = ['list', 'add', 'pause', 'resume', 'rm'];

export const schedulesVerb: Verb = {
  name: 'schedules',
  summary: 'list, add, pause, resume or remove schedules',
  usage: '[list | add <type> --cron "<expr>" [--id id] [--timezone tz] [--overlap skip|allow|cancel-previous] [key=value ...] | pause <id> | resume <id> | rm <id>]',
  positionals: [
    { name: 'action', required: false },
    { name: 'target', required: false },
    { name: 'assignments', required: false, rest: true },
  ],
  flags: [
    { name: 'cron', takes: 'value', valueName: 'expr', summary: 'five fields, or six with seconds first (add)' },
    { name: 'id', takes: 'value', valueName: 'id', summary: 'schedule id (add; default: chosen by the service)' },
    { name: 'timezone', takes: 'value', valueName: 'tz', summary: 'IANA zone, e.g. Europe/Berlin (add; default UTC)' },
    { name: 'overlap', takes: 'value', valueName: 'policy', summary: 'skip | allow | cancel-previous (add)' },
  ],
  details: ['Example: orch schedules add security-audit --cron "0 2 * * *" scope=projects/app'],
  async run({ args, output, client }) {
    const action = word(args, 'action') || 'list';
    if (!SCHEDULE_ACTIONS.includes(action)) {
      throw new UsageError(`unknown schedules action '${action}'.${didYouMean(action, SCHEDULE_ACTIONS)} Actions: ${SCHEDULE_ACTIONS.join(', ')}.`);
    }
    const target = word(args, 'target');
    if (action === 'list') {
      if (target !== '' || words(args, 'assignments').length > 0) throw new UsageError("'schedules list' takes no arguments");
      const answer = await client().schedules();
      if (output.json) return printJson(output, answer);
      const rows = (answer.schedules ?? answer.items ?? []) as Row[];
      output.out(
        table<Row>(
          output,
          rows,
          [
            { header: 'id', value: (r) => r.id, fit: 'wrap' },
            { header: 'type', value: scheduleWork },
            { header: 'cron', value: (r) => r.cron },
            { header: 'zone', value: (r) => r.timezone ?? 'UTC' },
            { header: 'state', value: (r) => (r.builtIn ? 'built-in' : r.enabled === false ? 'paused' : 'enabled') },
            { header: 'next', value: (r) => when((r.nextRunAt as string[] | undefined)?.[0]), fit: 'drop' },
            { header: 'last run', value: (r) => r.lastRunId, fit: 'wrap' },
          ],
          'No schedules.',
        ),
      );
      return EXIT.ok;
    }
    if (target === '') throw new UsageError(`'schedules ${action}' needs <${action === 'add' ? 'type' : 'id'}>`);
    if (action === 'add') {
      const cron = flag(args, 'cron');
      if (cron === undefined) throw new UsageError("'schedules add' needs --cron \"<expr>\"");
      const payload = payloadFromAssignments(words(args, 'assignments'));
      const body: Record<string, unknown> = { type: target, cron };
      for (const name of ['id', 'timezone', 'overlap'] as const) {
        const value = flag(args, name);
        if (value !== undefined) body[name] = value;
      }
      if (Object.keys(payload).length > 0) body.payload = payload;
      const created = await client().addSchedule(body);
      if (output.json) return printJson(output, created);
      output.out(`added  ${text(created.id)}  next ${when((created.nextRunAt as string[] | undefined)?.[0])}`);
      return EXIT.ok;
    }
    if (words(args, 'assignments').length > 0) throw new UsageError(`'schedules ${action}' takes only <id>`);
    if (action === 'rm') {
      await client().removeSchedule(target);
      if (!output.json) output.out(`removed  ${target}`);
      else output.out(JSON.stringify({ id: target, removed: true }));
      return EXIT.ok;
    }
    const changed = await client().updateSchedule(target, { enabled: action === 'resume' });
    if (output.json) return printJson(output, changed);
    output.out(`${action === 'resume' ? 'resumed' : 'paused'}  ${target}`);
    return EXIT.ok;
  },
};

/** A concurrency key as a cell: unkeyed runs have none. */
const keyCell = (key: QueueKeyView) => key.key ?? '(unkeyed)';
const waitCell = (key: QueueKeyView) => (key.oldestWaitSeconds === null ? '' : `${Math.round(key.oldestWaitSeconds)}s`);
/** Waiting runs by priority, the highest first: `p5:2 p3:10` (empty when none waits). */
const prioritiesCell = (priorities: readonly QueuePriorityView[]) => priorities.map((p) => `p${p.priority}:${p.waiting}`).join(' ');

/** `; by priority p5:2 p3:10`, or nothing when none waits. */
const byPriorityLine = (priorities: readonly QueuePriorityView[]) => (priorities.length === 0 ? '' : `; by priority ${prioritiesCell(priorities)}`);

export const queueVerb = answerVerb({
  name: 'queue',
  summary: 'waiting and running runs by limit bucket, concurrency key and priority',
  details: ['Limit buckets come from config `limits` (docs/queue.md); a key with waiting runs shows how long its oldest has waited and its waiting runs by priority (p5:2 = two waiting at priority 5).'],
  read: (client) => client.queue(),
  show(output, answer) {
    const keyColumns = [
      { header: 'key', value: keyCell, fit: 'wrap' as const },
      { header: 'running', value: (k: QueueKeyView) => String(k.running) },
      { header: 'waiting', value: (k: QueueKeyView) => String(k.waiting) },
      { header: 'oldest wait', value: waitCell },
      { header: 'waiting by priority', value: (k: QueueKeyView) => prioritiesCell(k.byPriority), fit: 'wrap' as const },
    ];
    for (const bucket of answer.buckets) {
      const caps = [
        bucket.concurrency === null ? null : `concurrency ${bucket.concurrency}`,
        bucket.perKey === null ? null : `perKey ${bucket.perKey}`,
        bucket.rate === null ? null : `rate ${bucket.rate.max}/${bucket.rate.windowSeconds}s`,
      ].filter((cap) => cap !== null);
      output.out(`bucket ${bucket.name} (${caps.join(', ')}): ${bucket.running} running, ${bucket.waiting} waiting${byPriorityLine(bucket.priorities)}\n`);
      output.out(table<QueueKeyView>(output, bucket.keys, keyColumns, 'Nothing matches it.'));
      output.out('\n');
    }
    const notBefore = answer.notBefore > 0 ? ` (${answer.notBefore} held by a not-before time)` : '';
    output.out(`queue: ${answer.running} running, ${answer.waiting} waiting${notBefore}${byPriorityLine(answer.priorities)}\n`);
    output.out(table<QueueKeyView>(output, answer.keys, keyColumns, 'Nothing waits or runs.'));
    return EXIT.ok;
  },
});
