import type { OrchClient } from '../client/index.js';
import type { FlagSpec, ParsedArgs, PositionalSpec } from './args.js';
import type { Output } from './output.js';

/** Exit codes (DECISIONS.md): 0 success, 1 a watched run failed or the service refused, 2 usage, 130 a watched run was cancelled. */
export const EXIT = { ok: 0, failed: 1, usage: 2, cancelled: 130 } as const;

export interface VerbContext {
  args: ParsedArgs;
  output: Output;
  env: NodeJS.ProcessEnv;
  /** The client for the resolved URL and key (flags, then environment, then the login file). */
  client: () => OrchClient;
  /** Reads standard input to its end (login reads a key piped in). */
  readStdin: () => Promise<string>;
  /** Aborted on Ctrl-C: followers stop and the command exits 130. */
  signal: AbortSignal;
}

export interface Verb {
  name: string;
  summary: string;
  /** Words after `orch <name>` in the usage line. */
  usage: string;
  positionals: PositionalSpec[];
  flags: FlagSpec[];
  /** More help lines (examples). */
  details?: string[];
  /** False for verbs that need no service (login, logout). */
  needsService?: boolean;
  run: (context: VerbContext) => Promise<number>;
}

/** The positional as one word (a required one is checked by the parser). */
export function word(args: ParsedArgs, name: string): string {
  const value = args.positionals[name];
  return typeof value === 'string' ? value : '';
}

export function words(args: ParsedArgs, name: string): string[] {
  const value = args.positionals[name];
  return Array.isArray(value) ? value : [];
}

export function flag(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags[name];
  return typeof value === 'string' ? value : undefined;
}

/** Every value of a repeatable flag, in the order given (none: empty). */
export function flagValues(args: ParsedArgs, name: string): string[] {
  const value = args.flags[name];
  return Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
}

/** Prints JSON (for --json) and returns 0. */
export function printJson(output: Output, value: unknown): number {
  output.out(JSON.stringify(value, null, 2));
  return EXIT.ok;
}

/**
 * A verb without arguments that shows one answer of the service: the answer as it came with
 * --json, else what `show` prints of it. `show` returns the exit code.
 */
export function answerVerb<T>(verb: {
  name: string;
  summary: string;
  details?: string[];
  read: (client: OrchClient) => Promise<T>;
  show: (output: Output, answer: T) => number;
}): Verb {
  const { name, summary, details, read, show } = verb;
  return {
    name,
    summary,
    usage: '',
    positionals: [],
    flags: [],
    ...(details ? { details } : {}),
    async run({ output, client }) {
      const answer = await read(client());
      return output.json ? printJson(output, answer) : show(output, answer);
    },
  };
}
