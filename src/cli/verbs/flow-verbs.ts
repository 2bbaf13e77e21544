import type { FlowAdmission, FlowRecordView, OrchClient } from '../../client/index.js';
import { readJsonObjectFile } from '../json-file.js';
import { duration, fields, paint, statusColour, when, type Output } from '../output.js';
import { table } from '../table.js';
import { didYouMean } from '../suggest.js';
import { UsageError } from '../usage-error.js';
import { EXIT, flag, printJson, word, words, type Verb } from '../verb.js';

const ACTIONS = ['run', 'show', 'cancel', 'rerun'] as const;
/** How often --watch reads the flow: its end is recorded after its last step's, so the step events alone cannot say it. */
const WATCH_POLL_MS = 500;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });

/** The exit code a flow's status means: 0 success, 1 failed, 130 cancelled (DECISIONS.md). */
export function flowExitCode(status: string): number {
  if (status === 'success') return EXIT.ok;
  if (status === 'cancelled') return EXIT.cancelled;
  return EXIT.failed;
}

function printSteps(output: Output, flow: FlowRecordView): void {
  output.out(
    table(
      output,
      flow.steps,
      [
        { header: 'step', value: (s) => s.key },
        { header: 'state', value: (s) => s.state, colour: (s) => statusColour(s.state) },
        { header: 'type', value: (s) => s.type, fit: 'drop' },
        { header: 'after', value: (s) => s.dependsOn.join(', '), fit: 'cut', max: 30 },
        { header: 'took', value: (s) => (s.startedAt && s.finishedAt ? duration(Date.parse(s.finishedAt) - Date.parse(s.startedAt)) : ''), fit: 'drop' },
        { header: 'run', value: (s) => s.replayRunId ?? s.runId ?? '', fit: 'wrap' },
        { header: 'reason', value: (s) => s.reason ?? '', fit: 'cut', max: 50 },
      ],
      'The flow has no steps.',
    ),
  );
}

function printFlow(output: Output, flow: FlowRecordView): void {
  output.out(
    fields([
      ['flow', flow.flowId],
      ['status', paint(output, statusColour(flow.status), flow.cancelRequested && flow.status === 'running' ? 'cancelling' : flow.status)],
      ['requested by', flow.requestedBy],
      ['created', when(flow.createdAt)],
      ['ended', flow.endedAt ? when(flow.endedAt) : null],
      ['rerun of', flow.rerunOf],
    ]),
  );
  output.out('');
  printSteps(output, flow);
}

function printAdmission(output: Output, answer: FlowAdmission): void {
  if (output.json) return void output.out(JSON.stringify(answer, null, 2));
  const word = answer.status === 'queued' ? paint(output, 'green', 'queued') : paint(output, 'yellow', 'duplicate');
  output.out(`${word}  flow ${answer.flowId}  ${answer.runIds.length} steps${answer.rerunOf ? `  (rerun of ${answer.rerunOf})` : ''}`);
}

/** Prints each step's state as it changes until the flow ends; the exit code its status means (130 when interrupted). */
async function watchFlow(api: OrchClient, output: Output, flowId: string, signal: AbortSignal): Promise<number> {
  const seen = new Map<string, string>();
  for (;;) {
    const flow = await api.getFlow(flowId);
    for (const step of flow.steps) {
      if (seen.get(step.key) === step.state) continue;
      seen.set(step.key, step.state);
      if (output.json) output.out(JSON.stringify({ flowId, step: step.key, state: step.state, runId: step.runId }));
      else output.out(`${paint(output, statusColour(step.state), step.state.padEnd(17))} ${step.key}${step.reason ? `  ${paint(output, 'grey', step.reason)}` : ''}`);
    }
    if (flow.status !== 'running') {
      if (!output.json) output.out(`${paint(output, 'bold', `flow ${flowId}`)}  ${paint(output, statusColour(flow.status), flow.status)}`);
      return flowExitCode(flow.status);
    }
    await sleep(WATCH_POLL_MS, signal);
    if (signal.aborted) return EXIT.cancelled;
  }
}

export const flowVerb: Verb = {
  name: 'flow',
  summary: 'flows of runs that depend on runs: run a flow file, show, cancel or rerun one',
  usage: 'run <file.json> [--watch] | show <flowId> | cancel <flowId> [reason ...] | rerun <flowId> [--from <step>] [--watch]',
  positionals: [
    { name: 'action', required: true },
    { name: 'target', required: true },
    { name: 'rest', required: false, rest: true },
  ],
  flags: [
    { name: 'watch', short: 'w', takes: 'switch', summary: 'follow the flow to its end; exit 0 success, 1 failed, 130 cancelled' },
    { name: 'from', takes: 'value', valueName: 'step', summary: 'rerun: the step to run again from (the successful steps before it are reused)' },
  ],
  details: [
    'The file holds the body of POST /api/flows: {"id"?, "idempotencyKey"?, "steps": [{"key", "type", "payload", "dependsOn"?, "onDependencyFailure"?}]}.',
    'Example: orch flow run release.json --watch',
  ],
  async run({ args, output, client, signal }) {
    const action = word(args, 'action');
    const target = word(args, 'target');
    const api = client();
    switch (action) {
      case 'run': {
        const admitted = await api.createFlow(readJsonObjectFile(target, 'flow file'));
        printAdmission(output, admitted.body);
        return args.flags.watch ? watchFlow(api, output, admitted.body.flowId, signal) : EXIT.ok;
      }
      case 'show': {
        const flow = await api.getFlow(target);
        if (output.json) return printJson(output, flow);
        printFlow(output, flow);
        return EXIT.ok;
      }
      case 'cancel': {
        const reason = words(args, 'rest').join(' ');
        const flow = await api.cancelFlow(target, reason === '' ? undefined : reason);
        if (output.json) return printJson(output, flow);
        printFlow(output, flow);
        return EXIT.ok;
      }
      case 'rerun': {
        const answer = await api.rerunFlow(target, flag(args, 'from'));
        printAdmission(output, answer);
        return args.flags.watch ? watchFlow(api, output, answer.flowId, signal) : EXIT.ok;
      }
      default:
        throw new UsageError(`unknown flow action '${action}'.${didYouMean(action, [...ACTIONS])} (one of ${ACTIONS.join(', ')})`);
    }
  },
};
