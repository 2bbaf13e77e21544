import { payloadFromAssignments } from '../src/cli/assignments.js';
import { UsageError } from '../src/cli/usage-error.js';
import { closest } from '../src/cli/suggest.js';
import { createOrchClient, describeClientError, OrchApiError, OrchNetworkError, type OrchClient } from '../src/client/index.js';
import { approvalProgressOf, approvalProgressText, awaitsQuorum } from '../src/runtime/approval-answer.js';
import { finishReply } from './reply.js';
import { tokenize } from './tokenize.js';

/** Who wrote the message, as the gateway says. */
export interface ChatContext {
  user: string;
  channel: string;
}

export interface BridgeOptions {
  /** The service's base URL. */
  url: string;
  /** Chat user -> the service key that user acts with. No user gets more than their key's role. */
  users: Record<string, string>;
  /**
   * A viewer key for chat users not in `users`: they get read-only answers (status, runs,
   * incidents, help). Without it, unmapped users get a refusal and nothing is read.
   */
  readOnlyKey?: string | null;
  /** Told of each handled message; never given a key. */
  log?: (entry: { user: string; channel: string; verb: string; outcome: 'ok' | 'refused' | 'error' | 'usage' }) => void;
  fetch?: typeof fetch;
  /**
   * Posts a message to a chat channel: the gateway's own way to speak unasked. Given, the bridge
   * is an alert sink (`notify`, the service's `chat` sink, docs/alerts.md); absent, it is not.
   */
  postToChat?: (channel: string, text: string) => Promise<void>;
}

interface Command {
  name: string;
  usage: string;
  summary: string;
  /** Needs a mapped user (changes something, or reads what only operators may). */
  mappedOnly: boolean;
  run: (client: OrchClient, words: string[]) => Promise<string>;
}

/** The leading words that read `key=value` (a key of letters, digits, `_`, `-` and dots). */
function leadingAssignments(words: readonly string[]): string[] {
  const end = words.findIndex((word) => !/^[A-Za-z_][\w.-]*=/.test(word));
  return words.slice(0, end === -1 ? words.length : end);
}

const VERB_NAMES = ['run', 'status', 'runs', 'approvals', 'approve', 'reject', 'incidents', 'cancel', 'help'];

function need(words: string[], index: number, what: string, verb: string): string {
  const value = words[index];
  if (value === undefined || value === '') throw new UsageError(`/orch ${verb} needs <${what}>`);
  return value;
}

const line = (parts: Array<string | number | null | undefined>) => parts.filter((p) => p !== null && p !== undefined && p !== '').join(' · ');

const COMMANDS: Command[] = [
  {
    name: 'run',
    usage: '/orch run <task-type> [key=value ...]',
    summary: 'trigger a task',
    mappedOnly: true,
    async run(client, words) {
      const type = need(words, 0, 'task-type', 'run');
      const payload = payloadFromAssignments(words.slice(1));
      const answer = await client.trigger(type, payload);
      if (answer.status === 202) return `Queued ${type} as run ${answer.body.runId}. Follow up: /orch status ${answer.body.runId}`;
      return `Already known: run ${answer.body.runId} is ${'existingStatus' in answer.body ? answer.body.existingStatus : 'known'}. Follow up: /orch status ${answer.body.runId}`;
    },
  },
  {
    name: 'status',
    usage: '/orch status [runId]',
    summary: 'the service at a glance, or one run',
    mappedOnly: false,
    async run(client, words) {
      if (words[0]) {
        const run = await client.getRun(words[0]);
        const lines = [line([`Run ${run.runId}`, run.type, run.status]), run.operatorSummary ?? run.error ?? ''];
        const actions = run.recommendedNextActions ?? [];
        if (actions.length > 0) lines.push(...actions.slice(0, 3).map((a) => `- ${a}`));
        return lines.filter((l) => l !== '').join('\n');
      }
      const brief = (await client.companion('overview')) as {
        posture: string;
        queue: { queued: number; processing: number; held: number; retrying: number };
        approvals: { pendingCount: number };
        incidents: { openCount: number; criticalCount: number };
        nextActions: string[];
      };
      return [
        `Posture: ${brief.posture}`,
        `Queue: ${brief.queue.queued} queued, ${brief.queue.processing} running, ${brief.queue.retrying} retrying, ${brief.queue.held} held`,
        `Approvals waiting: ${brief.approvals.pendingCount} · Incidents open: ${brief.incidents.openCount} (${brief.incidents.criticalCount} critical)`,
        ...brief.nextActions.slice(0, 3).map((a) => `- ${a}`),
      ].join('\n');
    },
  },
  {
    name: 'runs',
    usage: '/orch runs',
    summary: 'recent runs',
    mappedOnly: false,
    async run(client) {
      const brief = (await client.companion('runs')) as { total: number; runs: Array<{ runId: string; type: string; status: string; summary: string | null }> };
      if (brief.runs.length === 0) return 'No runs yet.';
      return [`Recent runs (${brief.total} in all):`, ...brief.runs.slice(0, 10).map((r) => `- ${r.runId} · ${r.type} · ${r.status}${r.summary ? ` · ${r.summary.slice(0, 80)}` : ''}`)].join('\n');
    },
  },
  {
    name: 'approvals',
    usage: '/orch approvals',
    summary: 'runs waiting for a decision',
    mappedOnly: true,
    async run(client) {
      // The operator route rather than the companion brief: it carries each approval's progress.
      const { count, pending } = await client.pendingApprovals();
      if (count === 0) return 'Nothing waits for approval.';
      return [
        `${count} waiting for a decision:`,
        ...pending.slice(0, 10).map((a) => {
          const risk = (a.impact as { riskLevel?: string } | null | undefined)?.riskLevel;
          const progress = approvalProgressOf(a);
          const quorum = awaitsQuorum(progress) ? ` · ${approvalProgressText(progress)}` : '';
          return `- ${a.taskId} · ${a.type}${risk ? ` · risk ${risk}` : ''}${quorum} (/orch approve ${a.taskId})`;
        }),
      ].join('\n');
    },
  },
  ...(['approve', 'reject'] as const).map(
    (decision): Command => ({
      name: decision,
      usage: decision === 'approve' ? '/orch approve <id> [key=value ...] [note ...]' : '/orch reject <id> [note ...]',
      summary: decision === 'approve' ? 'approve a held run (key=value words first: the approval input)' : 'reject a held run',
      mappedOnly: true,
      async run(client, words) {
        const id = need(words, 0, 'id', decision);
        // An approval's leading key=value words are its input (checked by the service against the
        // type's approval input schema); the words after them are the note.
        const rest = words.slice(1);
        const inputWords = decision === 'approve' ? leadingAssignments(rest) : [];
        const input = payloadFromAssignments(inputWords);
        const note = rest.slice(inputWords.length).join(' ');
        const answer = await client.decide(id, decision, note === '' ? undefined : note, input);
        const approval = answer.approval as { status?: string } | undefined;
        if (approval?.status === 'pending') {
          const progress = approvalProgressOf(approval);
          return `Approval of ${id} recorded: ${progress ? approvalProgressText(progress) : 'still pending'}. It runs once enough others approve.`;
        }
        const replay = typeof answer.replayRunId === 'string' ? ` It runs as ${answer.replayRunId}: /orch status ${answer.replayRunId}` : '';
        return `${decision === 'approve' ? 'Approved' : 'Rejected'} ${id}.${replay}`;
      },
    }),
  ),
  {
    name: 'incidents',
    usage: '/orch incidents',
    summary: 'open incidents',
    mappedOnly: false,
    async run(client) {
      const brief = (await client.companion('incidents')) as {
        overallStatus: string;
        openCount: number;
        open: Array<{ incidentId: string; title: string; severity: string; acknowledged: boolean }>;
      };
      if (brief.openCount === 0) return `No open incidents (${brief.overallStatus}).`;
      return [`${brief.openCount} open (${brief.overallStatus}):`, ...brief.open.slice(0, 10).map((i) => `- [${i.severity}] ${i.title} · ${i.incidentId}${i.acknowledged ? ' · acknowledged' : ''}`)].join('\n');
    },
  },
  {
    name: 'cancel',
    usage: '/orch cancel <runId> [reason ...]',
    summary: 'stop a run',
    mappedOnly: true,
    async run(client, words) {
      const runId = need(words, 0, 'runId', 'cancel');
      const reason = words.slice(1).join(' ');
      const answer = await client.cancel(runId, reason === '' ? undefined : reason);
      return answer.status === 'cancelled' ? `Cancelled ${runId}.` : `Cancelling ${runId}: its processes are being stopped. Follow up: /orch status ${runId}`;
    },
  },
];

function helpText(mapped: boolean): string {
  const shown = COMMANDS.filter((c) => mapped || !c.mappedOnly);
  return ['Commands:', ...shown.map((c) => `${c.usage} — ${c.summary}`), '/orch help — this list'].join('\n');
}

/**
 * The `/orch` chat command: what an agent gateway registers as the handler of `/orch`. Each
 * message acts with the service key its chat user is mapped to, so the service's own role
 * checks decide what a user may do; the reply is short chat text with the run id to follow up.
 * Keys never appear in a reply or a log entry.
 */
export function createBridge(options: BridgeOptions) {
  // Chat user names are data: looked up in a Map, so `__proto__` or `constructor` is a user like
  // any other (mapped only when the config names it), never a property of every object.
  const keys = new Map(Object.entries(options.users).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  const secrets = [...keys.values(), ...(options.readOnlyKey ? [options.readOnlyKey] : [])];
  const clients = new Map<string, OrchClient>();
  const clientFor = (key: string) => {
    let client = clients.get(key);
    if (!client) {
      client = createOrchClient({ url: options.url, apiKey: key, fetch: options.fetch, maxRateLimitWaits: 2 });
      clients.set(key, client);
    }
    return client;
  };

  async function handle(text: string, context: ChatContext): Promise<string> {
    const log = (verb: string, outcome: 'ok' | 'refused' | 'error' | 'usage') => options.log?.({ user: context.user, channel: context.channel, verb, outcome });
    const { words, error } = tokenize(text.trim().replace(/^\/orch\b/, ''));
    if (error) {
      log('?', 'usage');
      return finishReply(`Could not read that: ${error}. Try /orch help`, secrets);
    }
    const [verbName = 'help', ...rest] = words;
    const key = keys.get(context.user) ?? null;
    const mapped = key !== null;
    if (verbName === 'help') {
      log('help', 'ok');
      return finishReply(helpText(mapped), secrets);
    }
    const command = COMMANDS.find((c) => c.name === verbName);
    if (!command) {
      log(verbName, 'usage');
      const guess = closest(verbName, VERB_NAMES);
      return finishReply(`Unknown command "${verbName}".${guess ? ` Did you mean /orch ${guess}?` : ''} Try /orch help`, secrets);
    }
    const actingKey = key ?? (command.mappedOnly ? null : (options.readOnlyKey ?? null));
    if (actingKey === null) {
      log(verbName, 'refused');
      return finishReply(`You (${context.user}) are not mapped to a service key${command.mappedOnly ? ' that may do this' : ''}; ask an operator to add you to the bridge's users.`, secrets);
    }
    try {
      const reply = await command.run(clientFor(actingKey), rest);
      log(verbName, 'ok');
      return finishReply(reply, secrets);
    } catch (err) {
      if (err instanceof UsageError) {
        log(verbName, 'usage');
        return finishReply(`${err.message}. Usage: ${command.usage}`, secrets);
      }
      if (err instanceof OrchApiError) {
        log(verbName, 'refused');
        const why = err.status === 403 ? 'your key may not do this' : err.message;
        return finishReply(`Refused (${err.code}): ${why}${err.requestId ? ` [request ${err.requestId}]` : ''}`, secrets);
      }
      log(verbName, 'error');
      return finishReply(err instanceof OrchNetworkError ? 'The orchestrator cannot be reached right now.' : `Failed: ${describeClientError(err)}`, secrets);
    }
  }

  /**
   * An alert notice from the service, posted to its channel as chat text (keys replaced, cut like
   * a reply). False when this bridge has no way to post.
   */
  async function notify(notice: { channel: string; text: string }): Promise<boolean> {
    if (!options.postToChat) return false;
    await options.postToChat(notice.channel, finishReply(notice.text, secrets));
    return true;
  }

  return { handle, notify, canNotify: options.postToChat !== undefined };
}

export type Bridge = ReturnType<typeof createBridge>;
