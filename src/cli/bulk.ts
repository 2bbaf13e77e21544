import type { OrchClient } from '../client/index.js';
import type { BulkAnswer, BulkFilter } from '../runtime/bulk-actions.js';
import { paint, statusColour, type Output } from './output.js';
import { didYouMean } from './suggest.js';
import { table } from './table.js';
import { UsageError } from './usage-error.js';
import { EXIT, printJson } from './verb.js';

/** The keys `--filter` takes besides `payload.<field>`: the service's bulk filter, spelled as in the API. */
const FILTER_KEYS = ['type', 'status', 'queueState', 'idPrefix', 'verdict', 'createdFrom', 'createdTo'] as const;
const PAYLOAD_PREFIX = 'payload.';

/**
 * `--filter type=X,status=pending,payload.scope=projects/app`: comma-separated key=value pairs.
 * A payload value stays text; the service matches it against text, numbers and booleans alike.
 */
export function parseBulkFilter(text: string): BulkFilter {
  const filter: Record<string, unknown> = {};
  const payload: Record<string, string> = {};
  for (const pair of text.split(',')) {
    if (pair.trim() === '') continue;
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--filter takes key=value pairs separated by commas, not '${pair}'`);
    const key = pair.slice(0, at).trim();
    const value = pair.slice(at + 1);
    if (key.startsWith(PAYLOAD_PREFIX) && key.length > PAYLOAD_PREFIX.length) payload[key.slice(PAYLOAD_PREFIX.length)] = value;
    // `tag=a,tag=b`: runs carrying both.
    else if (key === 'tag') filter.tags = [...((filter.tags as string[] | undefined) ?? []), value];
    else if ((FILTER_KEYS as readonly string[]).includes(key)) filter[key] = value;
    else throw new UsageError(`unknown --filter key '${key}'.${didYouMean(key, [...FILTER_KEYS, 'tag'])} (keys: ${FILTER_KEYS.join(', ')}, tag, payload.<field>)`);
  }
  if (Object.keys(payload).length > 0) filter.payload = payload;
  if (Object.keys(filter).length === 0) throw new UsageError('--filter names no criterion: a bulk action never picks every run');
  return filter as BulkFilter;
}

export interface BulkOptions {
  action: 'cancel' | 'rerun';
  filter: BulkFilter;
  dryRun: boolean;
  yes: boolean;
  max?: number;
  reason?: string;
}

type Outcome = BulkAnswer<string>['runs'][number];

/**
 * Runs a bulk cancel or rerun by filter and prints what it did to each run. Nothing is asked
 * interactively: without `--dry-run` the caller must say `--yes`, so a script never hangs and
 * a person never acts on runs they have not named twice. Exit 1 when any run was refused.
 */
export async function runBulk(api: OrchClient, output: Output, options: BulkOptions): Promise<number> {
  if (!options.dryRun && !options.yes) {
    throw new UsageError(`bulk ${options.action} acts on every matching run (up to --max): see them with --dry-run, then add --yes to go ahead`);
  }
  const body = {
    filter: options.filter,
    dryRun: options.dryRun,
    ...(options.max !== undefined ? { max: options.max } : {}),
    ...(options.reason ? { reason: options.reason } : {}),
  };
  const answer = (await api.http.request<BulkAnswer<string>>('POST', `/api/tasks/bulk/${options.action}`, { body })).body;
  if (output.json) return printJson(output, answer);
  const verb = options.action;
  output.out(
    answer.dryRun
      ? `Dry run: would ${verb} ${answer.runs.length} of ${answer.matched} matching runs; nothing changed.`
      : `${verb === 'cancel' ? 'Cancel' : 'Rerun'}: ${answer.runs.length} of ${answer.matched} matching runs.`,
  );
  output.out(
    table<Outcome>(
      output,
      answer.runs,
      [
        { header: 'run', value: (r) => r.runId, fit: 'wrap' },
        { header: 'type', value: (r) => r.type ?? '' },
        { header: 'was', value: (r) => r.status ?? '', colour: (r) => (r.status ? statusColour(r.status) : null) },
        { header: answer.dryRun ? 'would be' : 'outcome', value: (r) => r.outcome, colour: (r) => outcomeColour(r.outcome) },
        { header: options.action === 'rerun' ? 'new run' : 'reason', value: (r) => (r.newRunId ?? r.reason ?? ''), fit: options.action === 'rerun' ? 'wrap' : 'cut' },
      ],
      'No runs match.',
    ),
  );
  if (answer.truncated) output.out(paint(output, 'grey', `${answer.matched - answer.runs.length} more match: raise --max (at most 500) or run again`));
  return answer.runs.some((r) => r.outcome === 'refused' || r.outcome === 'not-found') ? EXIT.failed : EXIT.ok;
}

function outcomeColour(outcome: string) {
  if (outcome === 'refused' || outcome === 'not-found') return 'red' as const;
  if (outcome === 'rerun') return 'green' as const;
  return statusColour(outcome);
}
