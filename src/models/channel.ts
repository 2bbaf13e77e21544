import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { parseJsonWithinBounds } from '../domain/json-bounds.js';
import type { RunRecord } from '../domain/run-record.js';
import { listenOnChannelPort, type ChannelPorts } from './channel-port.js';
import { readLaneRequest } from '../common/model-request.js';
import type { CompletionAnswer, CompletionRequest, ModelGateway } from './types.js';
import { readBoundedBody } from '../read-bounded-body.js';

/** The payload key under which a worker finds its channel (a service-reserved `__` key). */
export const MODEL_CHANNEL_PAYLOAD_KEY = '__model';
/** A completion request is a prompt, not a document: anything larger is refused unread. */
const MAX_BODY_BYTES = 256 * 1024;

/** What a worker is handed: where to ask and the token that lets it, or why it has no channel. */
export type ModelChannelInput =
  | { endpoint: string; token: string }
  | { endpoint: null; reason: string; detail: string };

/** One attempt's grant: the run, attempt and lane every request through the token is made for. */
interface Grant {
  runId: string;
  attempt: number;
  lane: string;
  /** Aborted when the attempt is stopped, ends, or its share of the attempt's time for models is spent. */
  signal: AbortSignal;
}

/**
 * The share of a worker's timeout its model calls may take, retries and backoff included: what is
 * left lets the lane fall back to its deterministic path before the worker is stopped.
 */
export const MODEL_SHARE_OF_ATTEMPT = 0.6;

export interface OpenedChannel {
  input: Record<string, unknown>;
  /** Revokes the token: the worker's later requests are refused. */
  close(): void;
}

export interface ModelChannel {
  /** Opens the attempt's channel; `unavailable` says why a lane gets none (no provider, local lane). */
  open(run: RunRecord, signal: AbortSignal): Promise<OpenedChannel>;
  /** Active grants (tests and diagnostics). */
  grants(): number;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

/** The lane's part of a request; run, attempt and lane come from the grant, never from the body. */
function laneRequest(body: string, grant: Grant): CompletionRequest | string {
  const parsed = parseJsonWithinBounds(body, 'The body');
  if (!parsed.ok) return parsed.problem;
  const request = readLaneRequest(parsed.value);
  if (typeof request === 'string') return request;
  return { ...request, runId: grant.runId, attempt: grant.attempt, lane: grant.lane, signal: grant.signal };
}

/**
 * The workers' way to the gateway: one loopback HTTP endpoint per instance (127.0.0.1, on the
 * configured port or the first free one of the configured range, else a port the system picks;
 * started on the first grant) and one unguessable token per attempt, handed to the worker in its
 * payload and revoked when the attempt ends. The worker never holds the provider key; whatever it
 * sends, the grant decides the run, attempt and lane the call is made and metered for.
 */
export function createModelChannel(deps: {
  gateway: ModelGateway;
  logger: Logger;
  /** Why a lane gets no channel (no provider, a local or security-sensitive lane); null when it may ask. */
  unavailable: (lane: string) => { reason: string; detail: string } | null;
  /** The worker timeout of a lane; its MODEL_SHARE_OF_ATTEMPT bounds the attempt's model calls. Absent: no bound. */
  attemptTimeoutMs?: (lane: string) => number | null;
  /** Where to listen (config llm.channelPort / llm.channelPortRange); absent or null: a port the system picks. */
  ports?: ChannelPorts;
}): ModelChannel {
  const grants = new Map<string, Grant>();
  let listening: Promise<string> | null = null;
  let server: Server | null = null;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST' || req.url !== '/v1/complete') return send(res, 404, { error: 'not found' });
    const auth = req.headers.authorization ?? '';
    const grant = auth.startsWith('Bearer ') ? grants.get(auth.slice('Bearer '.length)) : undefined;
    if (!grant) return send(res, 401, { error: 'no live grant for this token (the attempt ended or the token is wrong)' });
    const body = await readBoundedBody(req, MAX_BODY_BYTES);
    if (!body.ok) {
      if (body.reason === 'failed') return void res.destroy();
      return send(res, 413, { error: `request body over ${MAX_BODY_BYTES} bytes` });
    }
    const request = laneRequest(body.text, grant);
    if (typeof request === 'string') return send(res, 400, { error: request });
    const answer: CompletionAnswer = await deps.gateway.complete(request);
    send(res, 200, answer);
  }

  async function listen(): Promise<string> {
    const s = createServer((req, res) => {
      handle(req, res).catch((err: unknown) => {
        deps.logger.error({ err }, 'model channel request failed');
        if (!res.headersSent) send(res, 500, { error: 'model channel failed' });
      });
    });
    const port = await listenOnChannelPort(s, deps.ports ?? null);
    s.on('error', (err) => deps.logger.error({ err }, 'model channel listener failed'));
    server = s;
    return `http://127.0.0.1:${port}/v1/complete`;
  }

  function start(): Promise<string> {
    // A failure to listen (every configured port taken) fails the attempt that asked; the next
    // attempt tries again rather than inheriting the failure.
    listening ??= listen().catch((err: unknown) => {
      listening = null;
      throw err;
    });
    return listening;
  }

  return {
    async open(run, signal) {
      const missing = deps.unavailable(run.type);
      if (missing) return { input: { [MODEL_CHANNEL_PAYLOAD_KEY]: { endpoint: null, ...missing } satisfies ModelChannelInput }, close: () => undefined };
      const endpoint = await start();
      const token = randomBytes(32).toString('base64url');
      // The grant's own signal: a call in flight stops (no further try) when the attempt is
      // stopped, when it ends (the worker timed out or exited), or when its model time is spent.
      const stop = new AbortController();
      const onAttemptAbort = () => stop.abort(signal.reason);
      if (signal.aborted) stop.abort(signal.reason);
      else signal.addEventListener('abort', onAttemptAbort, { once: true });
      const attemptMs = deps.attemptTimeoutMs?.(run.type) ?? null;
      const deadline = attemptMs === null ? null : setTimeout(() => stop.abort('the attempt\'s time for model calls is spent'), Math.floor(attemptMs * MODEL_SHARE_OF_ATTEMPT));
      deadline?.unref();
      grants.set(token, { runId: run.runId, attempt: run.attempt, lane: run.type, signal: stop.signal });
      return {
        input: { [MODEL_CHANNEL_PAYLOAD_KEY]: { endpoint, token } satisfies ModelChannelInput },
        close: () => {
          grants.delete(token);
          if (deadline) clearTimeout(deadline);
          signal.removeEventListener('abort', onAttemptAbort);
          stop.abort('the attempt ended');
        },
      };
    },
    grants: () => grants.size,
    async close() {
      grants.clear();
      const s = server;
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
}
