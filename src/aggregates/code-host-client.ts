import { DomainError } from '../domain/errors.js';

/**
 * Client of a code host's CI runs API (the widely used `GET <base>/repos/<owner>/<name>/actions/runs`
 * shape). It answers the newest workflow run of one branch. The token travels in the
 * Authorization header only: never in the URL, a log line or an error message.
 */
export interface CiRun {
  workflowName: string;
  /** `success`, `failure`, `cancelled`, ... or null while the run has not concluded. */
  conclusion: string | null;
  /** `queued`, `in_progress`, `completed`, ... */
  status: string;
  url: string | null;
  updatedAt: string | null;
}

export interface CiRunsClient {
  latestRun(): Promise<CiRun | null>;
}

export interface CiRunsClientOptions {
  apiBaseUrl: string;
  repository: string;
  branch: string;
  token: string | null;
  timeoutMs: number;
  fetch?: typeof fetch;
}

/**
 * A failed probe (code `unavailable`): the message is safe to show in the health detail (status
 * code, network cause), never a credential.
 */
export function ciProbeFailure(reason: string): DomainError {
  return new DomainError('unavailable', reason);
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** The newest run of the answer, or null when the branch has none. Unknown shapes are an error. */
export function parseLatestRun(body: unknown): CiRun | null {
  const runs = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).workflow_runs : undefined;
  if (!Array.isArray(runs)) throw ciProbeFailure('CI runs API answered without a workflow_runs list');
  const first = runs[0] as Record<string, unknown> | undefined;
  if (!first || typeof first !== 'object') return null;
  return {
    workflowName: text(first.name) ?? text(first.display_title) ?? 'unnamed workflow',
    conclusion: text(first.conclusion),
    status: text(first.status) ?? 'unknown',
    url: text(first.html_url),
    updatedAt: text(first.updated_at),
  };
}

function networkCause(err: unknown): string {
  if (err instanceof Error && err.name === 'TimeoutError') return 'request timed out';
  const cause = err instanceof Error ? (err as Error & { cause?: { code?: string } }).cause : undefined;
  if (cause?.code) return `network error ${cause.code}`;
  return 'network error';
}

export function createCiRunsClient(options: CiRunsClientOptions): CiRunsClient {
  const doFetch = options.fetch ?? fetch;
  const base = options.apiBaseUrl.replace(/\/+$/, '');
  const [owner, name] = options.repository.split('/');
  const url = `${base}/repos/${encodeURIComponent(owner ?? '')}/${encodeURIComponent(name ?? '')}/actions/runs?branch=${encodeURIComponent(options.branch)}&per_page=1`;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;

  return {
    async latestRun() {
      let res: Response;
      try {
        res = await doFetch(url, { headers, signal: AbortSignal.timeout(options.timeoutMs) });
      } catch (err) {
        throw ciProbeFailure(networkCause(err));
      }
      if (!res.ok) {
        await res.body?.cancel();
        throw ciProbeFailure(`CI runs API answered HTTP ${res.status}`);
      }
      let body: unknown;
      try {
        body = await res.json();
      } catch {
        throw ciProbeFailure('CI runs API answered a body that is not JSON');
      }
      return parseLatestRun(body);
    },
  };
}
