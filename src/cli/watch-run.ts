import type { OrchClient, RunStreamEvent } from '../client/index.js';
import { clock, duration, paint, statusColour, type Output } from './output.js';
import { EXIT } from './verb.js';

const TERMINAL = new Set(['success', 'failed', 'cancelled', 'skipped']);

/**
 * The exit code a run's final status means: 0 success, 130 cancelled, 1 otherwise; a flow step
 * its dependencies' outcome `skipped` exits 1 (it did no work and has no result; docs/cli.md).
 */
export function exitCodeFor(status: string): number {
  if (status === 'success') return EXIT.ok;
  if (status === 'cancelled') return EXIT.cancelled;
  return EXIT.failed;
}

/**
 * Follows a run's event stream: one line per event (on a terminal, the progress line is
 * rewritten in place), then the run's operator summary and next actions. Resolves with the exit
 * code of its final status; 130 when the user interrupts.
 */
export async function watchRun(client: OrchClient, output: Output, runId: string, signal: AbortSignal, interactive: boolean): Promise<number> {
  let last: RunStreamEvent | null = null;
  const line = (event: RunStreamEvent) =>
    `${clock(event.at)}  ${paint(output, statusColour(event.status), event.status.padEnd(9))} ${event.name}${event.detail ? `  ${paint(output, 'grey', event.detail)}` : ''}`;
  await client.followRun(
    runId,
    {
      onEvent: (event) => {
        last = event;
        if (output.json) output.out(JSON.stringify(event));
        else if (interactive) output.progress(`\r\u001b[2K${line(event)}`);
        else output.out(line(event));
      },
    },
    { signal },
  );
  if (interactive && !output.json) output.progress('\n');
  if (signal.aborted) return EXIT.cancelled;
  const run = await client.getRun(runId);
  const final = String(run.status);
  if (!TERMINAL.has(final)) return last === null ? EXIT.failed : exitCodeFor(final);
  if (!output.json) {
    const took = run.startedAt && run.finishedAt ? Date.parse(String(run.finishedAt)) - Date.parse(String(run.createdAt)) : null;
    output.out(`${paint(output, 'bold', run.runId)}  ${paint(output, statusColour(final), final)}  ${run.type}  ${duration(took)}`);
    if (run.operatorSummary) output.out(run.operatorSummary);
    if (run.error && final !== 'success') output.out(paint(output, 'red', `error: ${run.error}`));
    for (const action of run.recommendedNextActions ?? []) output.out(`  - ${action}`);
  }
  return exitCodeFor(final);
}
