import type { RunLogLine, RunLogsAnswer } from '../api/types.js';

/**
 * Which attempts ran and have printed nothing, kept or live (the route lists every attempt that
 * ran, a silent one with no lines), so a reader can tell "printed nothing" from "never ran".
 * Null when there is none.
 */
export function silentAttemptsNote(kept: RunLogsAnswer, live: readonly RunLogLine[]): string | null {
  const printedLive = new Set(live.map((l) => l.attemptId));
  const silent = kept.attempts
    .filter((a) => a.lines.length === 0 && a.truncated === 0 && !printedLive.has(a.attemptId))
    .map((a) => a.attemptId.slice(a.attemptId.lastIndexOf('#')));
  if (silent.length === 0) return null;
  const names = silent.length === 1 ? silent[0]! : `${silent.slice(0, -1).join(', ')} and ${silent.at(-1)!}`;
  return `Attempt${silent.length === 1 ? '' : 's'} ${names} ran and ${silent.length === 1 ? 'has' : 'have'} printed nothing.`;
}
