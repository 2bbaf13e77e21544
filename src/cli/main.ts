import { createOrchClient } from '../client/index.js';
import { GLOBAL_FLAGS, parseArgs, type FlagSpec, type ParsedArgs } from './args.js';
import { loginFilePath, readLoginFile } from './config-file.js';
import { errorReport } from './error-report.js';
import type { Output } from './output.js';
import { didYouMean } from './suggest.js';
import { UsageError } from './usage-error.js';
import { EXIT, type Verb } from './verb.js';
import { ackVerb, approvalsVerb, approveVerb, incidentsVerb, queueVerb, rejectVerb, schedulesVerb } from './verbs/operator-verbs.js';
import { cancelVerb, logsVerb, rerunVerb, runVerb, runsVerb, showVerb, watchVerb } from './verbs/run-verbs.js';
import { flowVerb } from './verbs/flow-verbs.js';
import { catalogVerb, healthVerb, loginVerb, logoutVerb } from './verbs/service-verbs.js';

/** The command line's own verbs; the orch program adds the chat bridge's (src/orch.ts). */
export const VERBS: readonly Verb[] = [
  runVerb,
  watchVerb,
  runsVerb,
  showVerb,
  logsVerb,
  cancelVerb,
  rerunVerb,
  flowVerb,
  queueVerb,
  approvalsVerb,
  approveVerb,
  rejectVerb,
  incidentsVerb,
  ackVerb,
  schedulesVerb,
  catalogVerb,
  healthVerb,
  loginVerb,
  logoutVerb,
];

export interface CliIo {
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  /** `columns` is the terminal's width when standard output is one. */
  stdout: { write: (text: string) => unknown; isTTY?: boolean; columns?: number };
  stderr: { write: (text: string) => unknown; isTTY?: boolean };
  readStdin: () => Promise<string>;
  signal: AbortSignal;
}

function flagLine(f: FlagSpec): string {
  const name = `${f.short ? `-${f.short}, ` : ''}--${f.name}${f.takes === 'value' ? ` <${f.valueName ?? 'value'}>` : ''}`;
  return `  ${name.padEnd(30)} ${f.summary}`;
}

export function verbHelp(verb: Verb): string {
  return [
    `orch ${verb.name} ${verb.usage}`.trimEnd(),
    '',
    verb.summary,
    ...(verb.details ? ['', ...verb.details] : []),
    '',
    'Flags:',
    ...[...verb.flags, ...GLOBAL_FLAGS].map(flagLine),
  ].join('\n');
}

export function mainHelp(verbs: readonly Verb[] = VERBS): string {
  const width = Math.max(...verbs.map((v) => v.name.length));
  return [
    'orch: the command line of the task orchestrator',
    '',
    'Usage: orch <command> [arguments] [flags]',
    '',
    'Commands:',
    ...verbs.map((v) => `  ${v.name.padEnd(width)}  ${v.summary}`),
    '',
    "The service URL and key come from --url/--api-key, then ORCH_URL/ORCH_API_KEY, then 'orch login'.",
    "Run 'orch <command> --help' for a command's arguments and flags.",
  ].join('\n');
}

/** The URL and key: flags, then the environment, then the login file. */
function connection(flags: ParsedArgs['flags'], env: NodeJS.ProcessEnv): { url: string; apiKey: string | null } {
  const fromFlags = { url: typeof flags.url === 'string' ? flags.url : undefined, apiKey: typeof flags['api-key'] === 'string' ? flags['api-key'] : undefined };
  const url = fromFlags.url ?? env.ORCH_URL;
  const apiKey = fromFlags.apiKey ?? env.ORCH_API_KEY;
  if (url && apiKey) return { url, apiKey };
  const file = readLoginFile(loginFilePath(env));
  const resolvedUrl = url ?? file?.url;
  if (!resolvedUrl) throw new UsageError("no service URL: pass --url, set ORCH_URL, or run 'orch login'");
  return { url: resolvedUrl, apiKey: apiKey ?? file?.apiKey ?? null };
}

/** Columns a table may take: `$COLUMNS` when set, else the terminal's; no limit into a pipe or file. */
export function outputWidth(env: NodeJS.ProcessEnv, stdout: CliIo['stdout']): number | null {
  const fromEnv = Number(env.COLUMNS);
  if (env.COLUMNS !== undefined && Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  return stdout.isTTY === true && typeof stdout.columns === 'number' && stdout.columns > 0 ? stdout.columns : null;
}

/**
 * Runs one command line and resolves with its exit code: 0 success, 1 a failed run or a refusal
 * by the service, 2 a usage error (one line on stderr), 130 a cancelled run or an interrupt.
 */
export async function runCli(io: CliIo, verbs: readonly Verb[] = VERBS): Promise<number> {
  const [verbName, ...rest] = io.argv;
  const wantsJson = rest.includes('--json');
  const color = io.stdout.isTTY === true && !io.env.NO_COLOR && !rest.includes('--no-color');
  const output: Output = {
    out: (text) => io.stdout.write(`${text}\n`),
    err: (text) => io.stderr.write(`${text}\n`),
    progress: (text) => io.stderr.write(text),
    color,
    json: wantsJson,
    width: outputWidth(io.env, io.stdout),
  };
  try {
    if (verbName === undefined || verbName === '--help' || verbName === '-h' || verbName === 'help') {
      output.out(mainHelp(verbs));
      return verbName === undefined ? EXIT.usage : EXIT.ok;
    }
    const verb = verbs.find((v) => v.name === verbName);
    if (!verb) {
      const names = verbs.map((v) => v.name);
      // A close match is the likely fix; without one, the whole list is the help wanted.
      const hint = didYouMean(verbName, names);
      throw new UsageError(`unknown command '${verbName}'.${hint === '' ? ` Commands: ${names.join(', ')}.` : `${hint} ('orch --help' lists them)`}`);
    }
    const args = parseArgs(verb.name, rest, verb.flags, verb.positionals);
    if (args.flags.help) {
      output.out(verbHelp(verb));
      return EXIT.ok;
    }
    let client: ReturnType<typeof createOrchClient> | null = null;
    // Resolved when first needed, after the verb checked its own arguments: a wrong word is
    // reported as such even where no service is configured.
    const connect = () => {
      const resolved = connection(args.flags, io.env);
      return createOrchClient({
        url: resolved.url,
        apiKey: resolved.apiKey,
        onWait: ({ reason, ms }) => {
          if (reason === 'rate-limited') output.err(`rate limited: waiting ${(ms / 1000).toFixed(1)} s`);
        },
      });
    };
    return await verb.run({
      args,
      output,
      env: io.env,
      readStdin: io.readStdin,
      signal: io.signal,
      client: () => (client ??= connect()),
    });
  } catch (err) {
    if (err instanceof UsageError) {
      output.err(`orch: ${err.message}`);
      return EXIT.usage;
    }
    if (io.signal.aborted) return EXIT.cancelled;
    const [headline, ...details] = errorReport(err);
    output.err([`orch: ${headline}`, ...details].join('\n'));
    return EXIT.failed;
  }
}
