import type { AlertSinkConfig } from '../config/alerts.js';
import { guardedFetch, type OutboundNetwork } from '../net/guarded-fetch.js';
import type { SinkRequest } from './sink-request.js';

/** A receiver's answer body is read (to free the connection) up to this much, then dropped. */
const ANSWER_BYTES = 64 * 1024;

/** Null when the receiver took it (2xx); else why not, in words for the delivery record. */
export type SendResult = { ok: true } | { ok: false; error: string };

/** Sends one sink request through the guarded fetch: the sink's own allow-private setting, its timeout, no redirects. */
export async function sendToSink(sink: AlertSinkConfig, request: SinkRequest, network?: OutboundNetwork): Promise<SendResult> {
  const outcome = await guardedFetch(
    request.url,
    { method: 'POST', headers: request.headers, body: request.body },
    {
      rules: { allowPrivate: sink.allowPrivate, privateSetting: `alerts.sinks.${sink.name}.allowPrivate` },
      limits: { maxBytes: ANSWER_BYTES, timeoutMs: sink.timeoutMs, maxRedirects: 0 },
      overLimit: 'truncate',
      ...(network ? { network } : {}),
    },
  );
  if (outcome.kind === 'refused') return { ok: false, error: `refused: ${outcome.reason}` };
  if (outcome.kind === 'failed') {
    const error = outcome.error instanceof Error ? `${outcome.error.name}: ${outcome.error.message}` : String(outcome.error);
    return { ok: false, error: outcome.status !== null ? `HTTP ${outcome.status}: ${error}` : error };
  }
  const answer = await outcome.response.text().catch(() => '');
  if (outcome.response.status >= 200 && outcome.response.status < 300) return { ok: true };
  return { ok: false, error: `HTTP ${outcome.response.status}${answer ? `: ${answer.slice(0, 200)}` : ''}` };
}
