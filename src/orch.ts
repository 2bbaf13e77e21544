import { bridgeVerb } from '../bridge/verb.js';
import { runCli, VERBS, type CliIo } from './cli/main.js';
import type { Verb } from './cli/verb.js';

/**
 * The orch program: the command line's verbs and the chat bridge's `serve`. The bridge is built
 * on the command line (its words, its client), so the two meet here, above both, and src/cli/
 * never imports bridge/.
 */
export const ORCH_VERBS: readonly Verb[] = [...VERBS, bridgeVerb];

/** One orch command line with every verb; resolves with its exit code (runCli). */
export function runOrch(io: CliIo): Promise<number> {
  return runCli(io, ORCH_VERBS);
}
