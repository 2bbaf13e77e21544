import { createServer, type Server, type ServerResponse } from 'node:http';
import { signAlertDelivery } from '../incidents/alert-signature.js';
import { readBoundedBody } from '../read-bounded-body.js';

/** Alertmanager batches alerts per group; a webhook body this large is already unusual. */
const MAX_BODY_BYTES = 1024 * 1024;
/** How long the service may take to answer one forwarded body before Alertmanager is told to retry. */
const FORWARD_TIMEOUT_MS = 10_000;

export interface AlertRelayOptions {
  /** The service's `/webhook/alerts` (default: the service on this host). */
  targetUrl: string;
  /** WEBHOOK_SECRET: what the service checks the signature with. */
  secret: string;
  now?: () => number;
  fetch?: typeof fetch;
}

/**
 * The alerting sidecar's relay (docs/alerts.md, "The alerting sidecar"): Alertmanager cannot sign
 * its webhooks with the service's HMAC scheme, so it posts them here, on loopback, and the relay
 * forwards each body unchanged with `X-Orchestrator-Timestamp` and `X-Orchestrator-Signature`
 * made at forwarding time. The service's answer decides the relay's: a 2xx is 200, anything else
 * (or no answer) is 502, so Alertmanager retries the notification itself. The relay keeps nothing.
 */
export function createAlertRelay(options: AlertRelayOptions): Server {
  const now = options.now ?? Date.now;
  const post = options.fetch ?? fetch;
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  return createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST') return send(res, 405, { error: { code: 'method_not_allowed', message: 'POST an Alertmanager webhook body' } });
      const body = await readBoundedBody(req, MAX_BODY_BYTES);
      if (!body.ok) {
        if (body.reason === 'failed') return res.destroy();
        return send(res, 413, { error: { code: 'payload_too_large', message: `body over ${MAX_BODY_BYTES} bytes` } });
      }
      const timestamp = String(Math.floor(now() / 1000));
      let status: number;
      try {
        const answer = await post(options.targetUrl, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-orchestrator-timestamp': timestamp,
            'x-orchestrator-signature': signAlertDelivery(options.secret, timestamp, body.text),
          },
          body: body.text,
          redirect: 'manual',
          signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
        });
        await answer.arrayBuffer().catch(() => undefined);
        status = answer.status;
      } catch {
        return send(res, 502, { error: { code: 'upstream_error', message: 'the service did not answer' } });
      }
      if (status >= 200 && status < 300) return send(res, 200, { forwarded: true, status });
      send(res, 502, { error: { code: 'upstream_error', message: `the service answered ${status}` } });
    })().catch(() => send(res, 500, { error: { code: 'internal_error', message: 'the relay failed' } }));
  });
}

/** The relay's settings from the environment: it listens on loopback only, whatever it is told. */
export function relaySettings(env: NodeJS.ProcessEnv): { port: number; targetUrl: string; secret: string } | string {
  const secret = env.WEBHOOK_SECRET;
  if (!secret) return 'WEBHOOK_SECRET is required';
  const port = Number(env.RELAY_PORT ?? '9095');
  if (!Number.isInteger(port) || port < 0 || port > 65_535) return `RELAY_PORT ${env.RELAY_PORT} is not a port`;
  const targetUrl = env.RELAY_TARGET_URL || `http://127.0.0.1:${env.PORT || '3000'}/webhook/alerts`;
  if (!/^https?:\/\//.test(targetUrl)) return `RELAY_TARGET_URL ${targetUrl} is not an http(s) URL`;
  return { port, targetUrl, secret };
}
