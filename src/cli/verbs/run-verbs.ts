import { TASK_CATALOG } from '../../runtime/catalog.js';
import type { OrchClient, RunRecordView, TriggerAnswer } from '../../client/index.js';
import { deepMerge, objectFromJsonFile, payloadFromAssignments } from '../assignments.js';
import { clock, duration, fields, paint, statusColour, when, type Output } from '../output.js';
import { resolveRunId } from '../run-id.js';
import { isHeld, stateWords } from '../run-state.js';
import { table } from '../table.js';
import { didYouMean } from '../suggest.js';
import { UsageError } from '../usage-error.js';
import { EXIT, flag, flagValues, printJson, word, words, type Verb } from '../verb.js';
import type { FlagSpec, ParsedArgs } from '../args.js';
import { parseBulkFilter, runBulk, type BulkOptions } from '../bulk.js';
import type { BulkFilter } from '../../runtime/bulk-actions.js';
import { watchRun } from '../watch-run.js';

const RUN_STATUSES = ['waiting', 'pending', 'running', 'retrying', 'success', 'failed', 'cancelled', 'skipped'];

/** Task types a client may trigger, from this build's catalog (internal types are the service's own). */
function triggerableTypes(): string[] {
  const internal = new Set<string>(TASK_CATALOG.filter((e) => e.internalOnly).map((e) => e.type));
  return TASK_CATALOG.map((e) => e.type).filter((t) => !internal.has(t));
}

/**
 * Refuses a type neither this build nor the service knows. A name that is no built-in type may
 * be one of the service's operator types (its task types folder), so the service's catalog is
 * asked; when it cannot be asked (no URL, unreachable), the refusal names this build's types.
 */
async function checkType(type: string, client: () => Pick<OrchClient, 'catalog'>): Promise<void> {
  const known = triggerableTypes();
  if (known.includes(type)) return;
  const builtIn = TASK_CATALOG.some((e) => e.type === type);
  let theirs: string[] = [];
  if (!builtIn) {
    try {
      theirs = (await client().catalog()).tasks.map((t) => t.type);
    } catch {
      // the service cannot be asked: the built-in types are all this command knows
    }
  }
  if (theirs.includes(type)) return;
  const all = [...new Set([...known, ...theirs])];
  throw new UsageError(`unknown task type '${type}'.${didYouMean(type, all)} ('orch catalog' lists them)`);
}

function checkStatus(status: string | undefined): void {
  if (status !== undefined && !RUN_STATUSES.includes(status)) throw new UsageError(`unknown status '${status}'.${didYouMean(status, RUN_STATUSES)} (one of ${RUN_STATUSES.join(', ')})`);
}

function positiveInteger(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a whole number above 0, not '${value}'`);
  return n;
}

function printAdmission(output: Output, body: TriggerAnswer): void {
  if (output.json) {
    output.out(JSON.stringify(body, null, 2));
    return;
  }
  if (body.status === 'queued') {
    const held = body.approval === 'required' ? `  ${paint(output, 'yellow', 'awaiting approval')}` : '';
    output.out(`${paint(output, 'green', 'queued')}  ${body.runId}  ${body.type}${held}`);
    return;
  }
  output.out(`${paint(output, 'yellow', 'duplicate')}  ${body.runId} is already ${body.existingStatus} (${body.reason})`);
}

const interactive = (output: Output) => process.stderr.isTTY === true && !output.json;

const RUN_ID_HELP = '<runId> is the whole id or its first 8 or more characters (the one run whose id starts so).';

const TAG_FLAG: FlagSpec = { name: 'tag', takes: 'value', valueName: 't', repeats: true, summary: 'a tag kept on the run (repeat for more; A-Z a-z 0-9 . _ : / = -, at most 64 characters)' };

export const runVerb: Verb = {
  name: 'run',
  summary: 'trigger a task',
  usage: '<type> [key=value ...] [--payload-file f.json] [--key <idempotencyKey>] [--tag t ...] [--watch]',
  positionals: [
    { name: 'type', required: true },
    { name: 'assignments', required: false, rest: true },
  ],
  flags: [
    TAG_FLAG,
    { name: 'payload-file', takes: 'value', valueName: 'file', summary: 'payload from a JSON file (key=value words override its fields)' },
    { name: 'key', takes: 'value', valueName: 'idempotencyKey', summary: 'idempotency key: the same key never runs twice' },
    { name: 'watch', short: 'w', takes: 'switch', summary: 'follow the run to its end; exit 0 success, 1 failed, 130 cancelled' },
  ],
  details: [
    'Values parse as JSON when they are JSON (limit=5, tags=["a"]), else as text; dots nest (constraints.maxFilesChanged=1).',
    "Example: orch run security-audit scope=projects/app --watch",
  ],
  async run({ args, output, client, signal }) {
    const type = word(args, 'type');
    await checkType(type, client);
    const payload = deepMerge(objectFromJsonFile(flag(args, 'payload-file'), '--payload-file'), payloadFromAssignments(words(args, 'assignments')));
    const key = flag(args, 'key');
    if (key !== undefined) payload.idempotencyKey = key;
    const api = client();
    const admitted = await api.trigger(type, payload, flagValues(args, 'tag'));
    printAdmission(output, admitted.body);
    if (!args.flags.watch) return EXIT.ok;
    return watchRun(api, output, admitted.body.runId, signal, interactive(output));
  },
};

export const watchVerb: Verb = {
  name: 'watch',
  summary: "follow a run's events to its end",
  usage: '<runId>',
  positionals: [{ name: 'runId', required: true }],
  flags: [],
  details: ['Exit code: 0 success, 1 failed, 130 cancelled (or interrupted).', RUN_ID_HELP],
  async run({ args, output, client, signal }) {
    const api = client();
    return watchRun(api, output, await resolveRunId(api, word(args, 'runId')), signal, interactive(output));
  },
};

export const runsVerb: Verb = {
  name: 'runs',
  summary: 'list recent runs',
  usage: '[--status s] [--type t] [--held] [--id <start>] [--tag t ...] [--limit n]',
  positionals: [],
  flags: [
    { ...TAG_FLAG, summary: 'only runs carrying this tag (repeat: every one)' },
    { name: 'status', takes: 'value', valueName: 'status', summary: RUN_STATUSES.join('|') },
    { name: 'type', takes: 'value', valueName: 'type', summary: 'task type' },
    { name: 'held', takes: 'switch', summary: 'only runs awaiting approval (their status stays pending)' },
    { name: 'id', takes: 'value', valueName: 'start', summary: 'only runs whose id starts with this' },
    { name: 'limit', takes: 'value', valueName: 'n', summary: 'how many (default 20)' },
  ],
  async run({ args, output, client }) {
    const status = flag(args, 'status');
    checkStatus(status);
    const type = flag(args, 'type');
    if (type !== undefined) await checkType(type, client);
    const idPrefix = flag(args, 'id');
    if (idPrefix === '') throw new UsageError("'--id' needs the start of a run id");
    const limit = positiveInteger('limit', flag(args, 'limit')) ?? 20;
    const tags = flagValues(args, 'tag');
    const page = await client().listRuns({ status, type, limit, idPrefix, ...(tags.length > 0 ? { tag: tags } : {}), ...(args.flags.held ? { queueState: 'held' as const } : {}) });
    if (output.json) return printJson(output, page);
    output.out(
      table<RunRecordView>(
        output,
        page.items,
        [
          { header: 'run', value: (r) => r.runId, fit: 'wrap' },
          { header: 'type', value: (r) => r.type },
          { header: 'status', value: (r) => stateWords(r), colour: (r) => statusColour(r.status) },
          // Shown when a listed run has tags: a page without any keeps its columns.
          ...(page.items.some((r) => (r.tags ?? []).length > 0) ? [{ header: 'tags', value: (r: RunRecordView) => (r.tags ?? []).join(' '), fit: 'drop' as const }] : []),
          { header: 'created', value: (r) => when(r.createdAt), fit: 'drop' },
          { header: 'took', value: (r) => (r.finishedAt && r.startedAt ? duration(Date.parse(String(r.finishedAt)) - Date.parse(String(r.startedAt))) : ''), fit: 'drop' },
          { header: 'summary', value: (r) => r.operatorSummary ?? r.error ?? '', fit: 'cut', max: 60 },
        ],
        'No runs match.',
      ),
    );
    if (page.total > page.items.length) output.out(paint(output, 'grey', `${page.items.length} of ${page.total} shown`));
    return EXIT.ok;
  },
};

export const showVerb: Verb = {
  name: 'show',
  summary: 'one run: status, timing, summary, next actions',
  usage: '<runId>',
  positionals: [{ name: 'runId', required: true }],
  flags: [],
  details: [RUN_ID_HELP],
  async run({ args, output, client }) {
    const api = client();
    const run = await api.getRun(await resolveRunId(api, word(args, 'runId')));
    if (output.json) return printJson(output, run);
    const status = paint(output, statusColour(run.status), run.status);
    output.out(
      fields([
        ['run', run.runId],
        ['type', run.type],
        ['status', isHeld(run) ? `${status}, ${paint(output, 'yellow', 'awaiting approval')}` : status],
        ['tags', run.tags && run.tags.length > 0 ? run.tags.join(' ') : null],
        ['requested by', run.requestedBy],
        ['created', when(run.createdAt)],
        ['finished', run.finishedAt ? when(run.finishedAt) : null],
        ['took', run.finishedAt && run.startedAt ? duration(Date.parse(String(run.finishedAt)) - Date.parse(String(run.startedAt))) : null],
        ['attempts', run.attempt],
        ['approval', run.approval?.required ? run.approval.status : null],
        ['error', run.error],
      ]),
    );
    if (run.operatorSummary) output.out(`\n${run.operatorSummary}`);
    const actions = run.recommendedNextActions ?? [];
    if (actions.length > 0) output.out(`\nNext:\n${actions.map((a) => `  - ${a}`).join('\n')}`);
    return EXIT.ok;
  },
};

export const logsVerb: Verb = {
  name: 'logs',
  summary: "a run's log lines, per attempt",
  usage: '<runId> [-f]',
  positionals: [{ name: 'runId', required: true }],
  flags: [{ name: 'follow', short: 'f', takes: 'switch', summary: 'keep printing new lines until the run ends' }],
  details: [RUN_ID_HELP],
  async run({ args, output, client, signal }) {
    const api = client();
    const runId = await resolveRunId(api, word(args, 'runId'));
    const logs = await api.runLogs(runId);
    if (output.json && !args.flags.follow) return printJson(output, logs);
    for (const attempt of logs.attempts) {
      if (!output.json) output.out(paint(output, 'bold', `# ${attempt.attemptId}${attempt.truncated > 0 ? ` (${attempt.truncated} earlier lines dropped)` : ''}`));
      // Every attempt that ran is listed: one that printed nothing says so, unlike one that never ran.
      if (!output.json && attempt.lines.length === 0) output.out(paint(output, 'grey', '(printed nothing)'));
      for (const line of attempt.lines) output.out(output.json ? JSON.stringify(line) : `${clock(line.at)} ${line.line}`);
    }
    if (!args.flags.follow) {
      if (logs.attempts.length === 0 && !output.json) output.out('No attempt has run yet.');
      return EXIT.ok;
    }
    const seen = new Set(logs.attempts.flatMap((a) => a.lines.map((l) => `${a.attemptId}|${l.at}|${l.line}`)));
    await api.followRun(
      runId,
      {
        onEvent: () => undefined,
        onLog: (line) => {
          if (seen.has(`${line.attemptId}|${line.at}|${line.line}`)) return;
          output.out(output.json ? JSON.stringify(line) : `${clock(line.at)} ${line.line}`);
        },
      },
      { signal },
    );
    return EXIT.ok;
  },
};

const BULK_FLAGS: FlagSpec[] = [
  { name: 'filter', takes: 'value', valueName: 'k=v,...', summary: 'act on every run matching: type, status, queueState, idPrefix, verdict, tag (repeat: every one), createdFrom, createdTo, payload.<field>' },
  { name: 'dry-run', takes: 'switch', summary: 'with --filter: print what would be affected, change nothing' },
  { name: 'yes', short: 'y', takes: 'switch', summary: 'with --filter: go ahead (required unless --dry-run)' },
  { name: 'max', takes: 'value', valueName: 'n', summary: 'with --filter: at most n runs, newest first (default 100, at most 500)' },
];
const BULK_HELP = 'With --filter nothing is asked: --dry-run shows the runs and what each would come to; --yes acts. Exit 1 when the service refused any run.';

/** Whether the words ask for a bulk action (any bulk flag) rather than one run's. */
function bulkAsked(args: ParsedArgs): boolean {
  return BULK_FLAGS.some((f) => args.flags[f.name] !== undefined) || args.flags.failed !== undefined;
}

function bulkOptions(args: ParsedArgs, action: 'cancel' | 'rerun', extra: BulkFilter = {}): Omit<BulkOptions, 'reason'> {
  const text = flag(args, 'filter');
  const filter = { ...(text !== undefined ? parseBulkFilter(text) : {}), ...extra };
  if (Object.keys(filter).length === 0) throw new UsageError(`bulk ${action} needs --filter${action === 'rerun' ? ' or --failed / --type' : ''}`);
  if (filter.status !== undefined) checkStatus(filter.status);
  return { action, filter, dryRun: args.flags['dry-run'] === true, yes: args.flags.yes === true, max: positiveInteger('max', flag(args, 'max')) };
}

export const cancelVerb: Verb = {
  name: 'cancel',
  summary: 'stop a run (pending, held, retrying or running), or every run a filter matches',
  usage: '<runId> [reason ...] | --filter k=v[,k=v...] (--dry-run | --yes) [--max n] [reason ...]',
  positionals: [
    { name: 'runId', required: false },
    { name: 'reason', required: false, rest: true },
  ],
  flags: BULK_FLAGS,
  details: [RUN_ID_HELP, BULK_HELP, 'Example: orch cancel --filter type=summarize-content,status=pending --dry-run'],
  async run({ args, output, client }) {
    const api = client();
    if (bulkAsked(args)) {
      // Every word is the reason: there is no run id with a filter.
      const reason = [word(args, 'runId'), ...words(args, 'reason')].filter((w) => w !== '').join(' ');
      return runBulk(api, output, { ...bulkOptions(args, 'cancel'), ...(reason !== '' ? { reason } : {}) });
    }
    const runId = word(args, 'runId');
    if (runId === '') throw new UsageError("'cancel' needs <runId> or --filter");
    const reason = words(args, 'reason').join(' ');
    const answer = await api.cancel(await resolveRunId(api, runId), reason === '' ? undefined : reason);
    if (output.json) return printJson(output, answer);
    output.out(`${answer.runId}  ${paint(output, 'grey', answer.status)}`);
    return EXIT.ok;
  },
};

export const rerunVerb: Verb = {
  name: 'rerun',
  summary: 'run a run again (key=value words replace payload fields), or every run a filter matches',
  usage: '<runId> [key=value ...] [--key <idempotencyKey>] [--watch] | [--failed] [--type t] [--filter k=v,...] (--dry-run | --yes) [--max n]',
  positionals: [
    { name: 'runId', required: false },
    { name: 'assignments', required: false, rest: true },
  ],
  flags: [
    { name: 'key', takes: 'value', valueName: 'idempotencyKey', summary: 'idempotency key of the new run' },
    { name: 'watch', short: 'w', takes: 'switch', summary: 'follow the new run to its end' },
    { name: 'failed', takes: 'switch', summary: 'rerun the failed runs (status=failed), with --type to name one type' },
    { name: 'type', takes: 'value', valueName: 't', summary: 'with --failed or --filter: only runs of this type' },
    ...BULK_FLAGS,
  ],
  details: [RUN_ID_HELP, BULK_HELP, 'Example: orch rerun --failed --type summarize-content --dry-run'],
  async run({ args, output, client, signal }) {
    const api = client();
    const type = flag(args, 'type');
    if (bulkAsked(args) || type !== undefined) {
      if (word(args, 'runId') !== '' || args.flags.key !== undefined || args.flags.watch) {
        throw new UsageError('a bulk rerun takes no run id, key=value words, --key or --watch: each rerun keeps its original\'s payload');
      }
      if (type !== undefined) await checkType(type, client);
      const extra: BulkFilter = { ...(args.flags.failed ? { status: 'failed' as const } : {}), ...(type !== undefined ? { type } : {}) };
      return runBulk(api, output, bulkOptions(args, 'rerun', extra));
    }
    const runId = word(args, 'runId');
    if (runId === '') throw new UsageError("'rerun' needs <runId>, or --failed / --filter");
    const override = payloadFromAssignments(words(args, 'assignments'));
    const key = flag(args, 'key');
    const answer = await api.rerun(await resolveRunId(api, runId), {
      ...(Object.keys(override).length > 0 ? { payload: override } : {}),
      ...(key !== undefined ? { idempotencyKey: key } : {}),
    });
    printAdmission(output, answer.body);
    return args.flags.watch ? watchRun(api, output, answer.body.runId, signal, interactive(output)) : EXIT.ok;
  },
};
