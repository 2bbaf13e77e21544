import { FORWARDED_STREAM_MARKS } from '../domain/run-log-line.js';

/**
 * Whether this process is a worker whose standard error the service reads as the run's log: set by
 * runAgentMain when it runs as the worker process. Elsewhere (a lane called in a test, a tool)
 * a project command's output stays in its kept tail and is printed nowhere.
 */
let forwardingToService = false;

export function forwardProjectOutputToService(): void {
  forwardingToService = true;
}

/** The forwarders a project command uses by default: to the service when this is its worker, else none. */
export function defaultForwarders(): { stdout: OutputForwarder; stderr: OutputForwarder } | null {
  return forwardingToService ? { stdout: forwardLines('stdout'), stderr: forwardLines('stderr') } : null;
}

/** A pending line longer than this is forwarded in pieces (the run log bounds each line anyway). */
const MAX_PENDING_BYTES = 16 * 1024;

export interface OutputForwarder {
  push(chunk: Buffer): void;
  /** The stream ended: an unfinished last line is still forwarded. */
  end(): void;
}

/**
 * Forwards a project command's stream line by line as it prints, each line marked with the
 * stream it came from (src/domain/run-log-line.ts), so the service's run log keeps it live under
 * `stdout` or `stderr`. `write` is the worker's standard error unless a test gives its own.
 */
export function forwardLines(stream: 'stdout' | 'stderr', write: (text: string) => void = (text) => void process.stderr.write(text)): OutputForwarder {
  const mark = FORWARDED_STREAM_MARKS[stream];
  let pending = '';
  const emit = (line: string) => write(`${mark}${line.endsWith('\r') ? line.slice(0, -1) : line}\n`);
  return {
    push(chunk) {
      pending += chunk.toString('utf8');
      let newline = pending.indexOf('\n');
      while (newline !== -1) {
        emit(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
        newline = pending.indexOf('\n');
      }
      if (pending.length > MAX_PENDING_BYTES) {
        emit(pending);
        pending = '';
      }
    },
    end() {
      if (pending.length > 0) emit(pending);
      pending = '';
    },
  };
}
