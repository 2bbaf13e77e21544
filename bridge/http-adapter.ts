import { createServer, type Server, type ServerResponse } from 'node:http';
import { verifyAlertSignature } from '../src/incidents/alert-signature.js';
import type { Bridge } from './bridge.js';
import { parseJsonWithinBounds } from '../src/domain/json-bounds.js';
import { readBoundedBody } from '../src/read-bounded-body.js';

const MAX_BODY_BYTES = 16 * 1024;
/** Seen signatures are remembered a little past the ±300 s window, so a replay is always refused. */
const REPLAY_MEMORY_MS = 11 * 60_000;

/**
 * The chat message of a signed body, or why it is none: not JSON, past the JSON depth and size
 * bounds, not an object (`null`, a list), or without `text` and `user` strings.
 */
function chatMessageOf(raw: string): { text: string; user: string; channel: string } | string {
  const parsed = parseJsonWithinBounds(raw, 'The body');
  if (!parsed.ok) return parsed.problem;
  const value = parsed.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'body must be a JSON object {text, user, channel?}';
  const { text, user, channel } = value as { text?: unknown; user?: unknown; channel?: unknown };
  if (typeof text !== 'string' || typeof user !== 'string' || user === '') return 'body needs text and user strings';
  return { text, user, channel: typeof channel === 'string' ? channel : '' };
}

/** The chat notice of a signed `/notify` body (the service's chat sink), or why it is none. */
function noticeOf(raw: string): { deliveryId: string; channel: string; text: string } | string {
  const parsed = parseJsonWithinBounds(raw, 'The body');
  if (!parsed.ok) return parsed.problem;
  const value = parsed.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'body must be a JSON object {deliveryId, channel, text}';
  const { deliveryId, channel, text } = value as { deliveryId?: unknown; channel?: unknown; text?: unknown };
  if (typeof deliveryId !== 'string' || typeof channel !== 'string' || typeof text !== 'string' || channel === '') return 'body needs deliveryId, channel and text strings';
  return { deliveryId, channel, text };
}

export interface BridgeServerOptions {
  bridge: Bridge;
  /** The bridge's own signing secret (not the service's webhook secret). */
  secret: string;
  now?: () => number;
}

/**
 * `orch bridge serve`: the bridge over plain HTTP for chat clients that are not a gateway
 * plugin. `POST /` with `{text, user, channel}`, signed like the service's alert webhook, and
 * `POST /notify` with `{deliveryId, channel, text}` (the service's chat alert sink), likewise:
 * `X-Orchestrator-Timestamp` (unix seconds) and `X-Orchestrator-Signature: sha256=<hex>` of
 * HMAC-SHA256 over `<timestamp>.<raw body>` with the bridge's secret. Answers `{reply}`.
 * A replayed signature is refused; this process remembers them (one bridge process per secret).
 */
export function createBridgeServer(options: BridgeServerOptions): Server {
  const now = options.now ?? Date.now;
  const seen = new Map<string, number>();
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  // Deliveries already posted: the service retries a delivery it could not confirm, and a retry
  // of one posted here is answered as done, not posted twice (kept as long as signatures are).
  const posted = new Map<string, number>();
  return createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method !== 'POST' || (path !== '/' && path !== '/notify')) {
        send(res, req.method === 'POST' ? 404 : 405, { error: { code: req.method === 'POST' ? 'not_found' : 'method_not_allowed', message: 'POST / or /notify only' } });
        return;
      }
      const body = await readBoundedBody(req, MAX_BODY_BYTES);
      if (!body.ok) {
        if (body.reason === 'failed') return res.destroy();
        return send(res, 413, { error: { code: 'payload_too_large', message: `body over ${MAX_BODY_BYTES} bytes` } });
      }
      const raw = body.text;
      const check = verifyAlertSignature(
        options.secret,
        { rawBody: raw, signature: req.headers['x-orchestrator-signature'] as string | undefined, timestamp: req.headers['x-orchestrator-timestamp'] as string | undefined },
        now(),
      );
      if (!check.ok) return send(res, 401, { error: { code: 'unauthorized', message: `signature ${check.reason}` } });
      for (const [digest, at] of seen) if (now() - at > REPLAY_MEMORY_MS) seen.delete(digest);
      if (seen.has(check.digest)) return send(res, 401, { error: { code: 'unauthorized', message: 'signature replayed' } });
      seen.set(check.digest, now());
      if (path === '/notify') return answerNotice(res, raw);
      const message = chatMessageOf(raw);
      if (typeof message === 'string') return send(res, 400, { error: { code: 'invalid_request', message } });
      const reply = await options.bridge.handle(message.text, { user: message.user, channel: message.channel });
      send(res, 200, { reply });
    })().catch(() => send(res, 500, { error: { code: 'internal', message: 'the bridge failed' } }));
  });

  async function answerNotice(res: ServerResponse, raw: string): Promise<void> {
    const notice = noticeOf(raw);
    if (typeof notice === 'string') return send(res, 400, { error: { code: 'invalid_request', message: notice } });
    if (!options.bridge.canNotify) return send(res, 503, { error: { code: 'unavailable', message: 'this bridge has no chat to post to' } });
    for (const [id, at] of posted) if (now() - at > REPLAY_MEMORY_MS) posted.delete(id);
    if (posted.has(notice.deliveryId)) return send(res, 200, { posted: true, duplicate: true });
    await options.bridge.notify({ channel: notice.channel, text: notice.text });
    posted.set(notice.deliveryId, now());
    send(res, 200, { posted: true });
  }
}
