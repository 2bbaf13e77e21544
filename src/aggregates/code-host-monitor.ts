import type { CodeHostMonitorConfig } from '../config/types.js';
import { DomainError } from '../domain/errors.js';
import { createCiRunsClient, type CiRun, type CiRunsClient } from './code-host-client.js';

export type CodeHostStatus = 'disabled' | 'pending' | 'passing' | 'failing' | 'running' | 'no-runs' | 'unavailable';

/** `dependencies.codeHost` of extended health. */
export interface CodeHostReading {
  status: CodeHostStatus;
  summary: string;
  repository: string | null;
  branch: string | null;
  latestRun: { workflowName: string | null; conclusion: string | null; url: string | null };
  checkedAt: string | null;
}

export interface CodeHostMonitor {
  /** The cached reading; never waits for the code host. Starts a refresh in the background when stale. */
  current(): CodeHostReading;
  /** Probes now (the timer and tests call it); never rejects. */
  refresh(): Promise<CodeHostReading>;
  /** Probes every `refreshSeconds` off the request path; returns the stop function. */
  start(): () => void;
}

const NO_RUN = { workflowName: null, conclusion: null, url: null };

/** What a CI run means for the branch. */
export function readingOf(run: CiRun | null, repository: string, branch: string, checkedAt: string): CodeHostReading {
  const base = { repository, branch, checkedAt };
  if (!run) return { ...base, status: 'no-runs', summary: `no CI runs on ${repository}@${branch}`, latestRun: NO_RUN };
  const latestRun = { workflowName: run.workflowName, conclusion: run.conclusion, url: run.url };
  if (run.conclusion === null) {
    return { ...base, status: 'running', summary: `${run.workflowName} is ${run.status} on ${branch}`, latestRun };
  }
  const passing = run.conclusion === 'success' || run.conclusion === 'neutral' || run.conclusion === 'skipped';
  return {
    ...base,
    status: passing ? 'passing' : 'failing',
    summary: `${run.workflowName} concluded ${run.conclusion} on ${branch}`,
    latestRun,
  };
}

export function disabledReading(): CodeHostReading {
  return {
    status: 'disabled',
    summary: 'code-host CI monitor is off (codeHostMonitor.enabled / CODE_HOST_MONITOR_ENABLED)',
    repository: null,
    branch: null,
    latestRun: NO_RUN,
    checkedAt: null,
  };
}

/**
 * Watches the code host's CI status off the request path: a timer refreshes the reading every
 * `refreshSeconds`, and a read of a reading older than twice that starts one refresh in the
 * background. A slow or failing code host therefore never slows a route; it shows as
 * `unavailable` with `probe unavailable: <reason>`.
 */
export function createCodeHostMonitor(
  config: CodeHostMonitorConfig,
  options: { now?: () => Date; client?: CiRunsClient; fetch?: typeof fetch } = {},
): CodeHostMonitor {
  const now = options.now ?? (() => new Date());
  if (!config.enabled || !config.apiBaseUrl || !config.repository) {
    const reading = disabledReading();
    return { current: () => reading, refresh: async () => reading, start: () => () => undefined };
  }
  const repository = config.repository;
  const branch = config.branch;
  const client =
    options.client ??
    createCiRunsClient({ apiBaseUrl: config.apiBaseUrl, repository, branch, token: config.token, timeoutMs: config.timeoutMs, fetch: options.fetch });
  let reading: CodeHostReading = {
    status: 'pending',
    summary: 'first CI probe not finished yet',
    repository,
    branch,
    latestRun: NO_RUN,
    checkedAt: null,
  };
  let inFlight: Promise<CodeHostReading> | null = null;

  function refresh(): Promise<CodeHostReading> {
    inFlight ??= (async () => {
      const checkedAt = now().toISOString();
      try {
        reading = readingOf(await client.latestRun(), repository, branch, checkedAt);
      } catch (err) {
        // Only the client's own coded failures carry a message written to be shown.
        const reason = err instanceof DomainError && err.code === 'unavailable' ? err.message : 'unexpected probe failure';
        reading = { status: 'unavailable', summary: `probe unavailable: ${reason}`, repository, branch, latestRun: NO_RUN, checkedAt };
      } finally {
        inFlight = null;
      }
      return reading;
    })();
    return inFlight;
  }

  const staleAfterMs = 2 * config.refreshSeconds * 1000;
  return {
    current() {
      const age = reading.checkedAt === null ? Infinity : now().getTime() - Date.parse(reading.checkedAt);
      if (age > staleAfterMs) void refresh();
      return reading;
    },
    refresh,
    start() {
      void refresh();
      const timer = setInterval(() => void refresh(), config.refreshSeconds * 1000);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}
