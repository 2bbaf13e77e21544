/**
 * The demo's terminal while it runs: a line for each run that ends, read from the service's own
 * event stream (`GET /api/events`, with the demo's viewer key, over loopback), and once a minute
 * a summary of the requests answered and runs ended, instead of a log line per request (the log
 * lines about one request or one run go to debug; src/logging.ts tells this terminal of each
 * completed request).
 */

import { followEventStream } from '../client/sse.js';
import { createHttp } from '../client/http.js';
import { describeClientError } from '../client/errors.js';
import type { RunEventData } from '../events/run-event-data.js';
import { MinuteTally, RunEndWatcher, runLine } from './run-lines.js';

const SUMMARY_INTERVAL_MS = 60_000;

export interface DemoTerminal {
  /** Counts a completed request towards the minute's summary. */
  requestCompleted(statusCode: number): void;
  /** Starts following the service's runs and printing the minute's summaries. */
  start(url: string, viewerKey: string): void;
  stop(): void;
}

export function createDemoTerminal(print: (line: string) => void, now: () => Date = () => new Date()): DemoTerminal {
  const tally = new MinuteTally();
  const watcher = new RunEndWatcher();
  const stopFollowing = new AbortController();
  let summaries: NodeJS.Timeout | null = null;

  function onRunEvent(data: string): void {
    let event: RunEventData;
    try {
      event = JSON.parse(data) as RunEventData;
    } catch {
      return;
    }
    const ended = watcher.observe(event);
    if (!ended) return;
    tally.runEnded(ended.status);
    print(runLine(ended));
  }

  return {
    requestCompleted: (statusCode) => tally.request(statusCode),
    start(url, viewerKey) {
      summaries = setInterval(() => {
        const line = tally.take(now());
        if (line) print(line);
      }, SUMMARY_INTERVAL_MS);
      summaries.unref();
      const http = createHttp({ url, apiKey: viewerKey });
      followEventStream(http, '/api/events', (event) => event.event === 'run' && onRunEvent(event.data), { signal: stopFollowing.signal }).catch(
        (err: unknown) => print(`run lines stopped: ${describeClientError(err)}`),
      );
    },
    stop() {
      if (summaries) clearInterval(summaries);
      stopFollowing.abort();
    },
  };
}
