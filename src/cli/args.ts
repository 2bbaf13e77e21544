import { didYouMean } from './suggest.js';
import { UsageError } from './usage-error.js';

export interface FlagSpec {
  name: string;
  short?: string;
  /** `value`: the next word (or `--flag=value`) is its value; `switch`: present or not. */
  takes: 'value' | 'switch';
  summary: string;
  /** Shown in help after the flag (`--limit <n>`). */
  valueName?: string;
  /** A value flag that may be given several times; its values are kept in order (flagValues). */
  repeats?: boolean;
}

export interface PositionalSpec {
  name: string;
  required: boolean;
  /** Takes every remaining word (key=value lists, a note of several words). */
  rest?: boolean;
}

export interface ParsedArgs {
  positionals: Record<string, string | string[] | undefined>;
  flags: Record<string, string | true | string[] | undefined>;
}

/** Flags every verb takes. */
export const GLOBAL_FLAGS: FlagSpec[] = [
  { name: 'url', takes: 'value', valueName: 'url', summary: 'service URL (else ORCH_URL, else the login file)' },
  { name: 'api-key', takes: 'value', valueName: 'key', summary: 'service key (else ORCH_API_KEY, else the login file)' },
  { name: 'json', takes: 'switch', summary: "print the API's JSON instead of a table" },
  { name: 'no-color', takes: 'switch', summary: 'no colour (also when NO_COLOR is set or output is not a terminal)' },
  { name: 'help', short: 'h', takes: 'switch', summary: 'show help for this command' },
];

/**
 * Parses the words after the verb against the verb's flags and positionals. `--flag value` and
 * `--flag=value`; `-f` short switches; `--` ends flags. Unknown flags, missing values, missing
 * required positionals and extra words are usage errors naming what is wrong.
 */
export function parseArgs(verb: string, words: readonly string[], flags: readonly FlagSpec[], positionals: readonly PositionalSpec[]): ParsedArgs {
  const all = [...flags, ...GLOBAL_FLAGS];
  const parsed: ParsedArgs = { positionals: {}, flags: {} };
  const loose: string[] = [];
  let flagsEnded = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (flagsEnded || !word.startsWith('-') || word === '-') {
      loose.push(word);
      continue;
    }
    if (word === '--') {
      flagsEnded = true;
      continue;
    }
    const long = word.startsWith('--');
    const [rawName, inlineValue] = long ? splitOnce(word.slice(2), '=') : [word.slice(1), undefined];
    const spec = long ? all.find((f) => f.name === rawName) : all.find((f) => f.short === rawName);
    if (!spec) {
      const names = all.map((f) => `--${f.name}`);
      throw new UsageError(`unknown flag '${word}' for '${verb}'.${didYouMean(long ? `--${rawName}` : word, names)}`);
    }
    if (spec.takes === 'switch') {
      if (inlineValue !== undefined) throw new UsageError(`'--${spec.name}' takes no value`);
      parsed.flags[spec.name] = true;
      continue;
    }
    const value = inlineValue ?? words[++i];
    if (value === undefined) throw new UsageError(`'--${spec.name}' needs a value (${spec.valueName ?? 'value'})`);
    const earlier = parsed.flags[spec.name];
    if (spec.repeats) {
      parsed.flags[spec.name] = [...(Array.isArray(earlier) ? earlier : []), value];
      continue;
    }
    if (earlier !== undefined) throw new UsageError(`'--${spec.name}' is given twice`);
    parsed.flags[spec.name] = value;
  }
  if (parsed.flags.help) return parsed;
  for (const positional of positionals) {
    if (positional.rest) {
      parsed.positionals[positional.name] = loose.splice(0);
      continue;
    }
    const value = loose.shift();
    if (value === undefined && positional.required) throw new UsageError(`'${verb}' needs <${positional.name}>`);
    parsed.positionals[positional.name] = value;
  }
  if (loose.length > 0) throw new UsageError(`'${verb}' does not take '${loose[0]}'`);
  return parsed;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}
