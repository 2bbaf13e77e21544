import type { OutputForwarder } from '../worker-sdk/forward-output.js';

/** A program printing more than this on stdout is stopped: stdout carries its result, not a dump. */
export const MAX_PROGRAM_STDOUT_BYTES = 8 * 1024 * 1024;
/** The longest last line kept as the result. */
export const MAX_RESULT_LINE_BYTES = 1024 * 1024;

/**
 * A program's stdout, read for its last non-empty line (the protocol's result) in bounded memory:
 * earlier lines are dropped as they end, and past `maxBytes` in all `onOverflow` fires once
 * (the caller stops the program) and the rest is discarded.
 */
export interface LastLineCapture extends OutputForwarder {
  lastLine(): string | null;
  /** The last line was longer than the kept bound: there is no whole line to read. */
  readonly lineTooLong: boolean;
  readonly overflowed: boolean;
}

export function captureLastLine(onOverflow: () => void, maxBytes = MAX_PROGRAM_STDOUT_BYTES, maxLineBytes = MAX_RESULT_LINE_BYTES): LastLineCapture {
  let total = 0;
  let overflowed = false;
  let pending = '';
  let pendingTooLong = false;
  let last: string | null = null;
  let lastTooLong = false;
  const finishLine = (line: string, cut: boolean) => {
    const tooLong = cut || line.length > maxLineBytes;
    if (!tooLong && line.trim() === '') return;
    last = tooLong ? null : line;
    lastTooLong = tooLong;
  };
  return {
    push(chunk) {
      if (overflowed) return;
      total += chunk.length;
      if (total > maxBytes) {
        overflowed = true;
        pending = '';
        onOverflow();
        return;
      }
      pending += chunk.toString('utf8');
      let newline = pending.indexOf('\n');
      while (newline !== -1) {
        finishLine(pending.slice(0, newline), pendingTooLong);
        pendingTooLong = false;
        pending = pending.slice(newline + 1);
        newline = pending.indexOf('\n');
      }
      if (pending.length > maxLineBytes) {
        pending = '';
        pendingTooLong = true;
      }
    },
    end() {
      if (pending !== '' || pendingTooLong) finishLine(pending, pendingTooLong);
      pending = '';
      pendingTooLong = false;
    },
    lastLine: () => last,
    get lineTooLong() {
      return lastTooLong;
    },
    get overflowed() {
      return overflowed;
    },
  };
}

/** Passes a stream on (to the run log) and keeps its last `keepBytes`, for a failure's reason. */
export function teeTail(next: OutputForwarder | null, keepBytes = 2048): OutputForwarder & { tail(): string } {
  let kept = '';
  return {
    push(chunk) {
      next?.push(chunk);
      kept = (kept + chunk.toString('utf8')).slice(-keepBytes);
    },
    end() {
      next?.end();
    },
    tail: () => kept,
  };
}
