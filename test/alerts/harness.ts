import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { conditionSources } from '../../src/alerts/condition-sources.js';
import { createAlertService } from '../../src/alerts/service.js';
import type { Clock } from '../../src/clock.js';
import { resolveAlertsConfig, type AlertsConfigFile } from '../../src/config/alerts.js';
import { createCacheInvalidator } from '../../src/coordination/cache-invalidator.js';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import { createIncidentLedger } from '../../src/incidents/ledger.js';
import type { StateStore } from '../../src/store/types.js';

/** How the receiver answers the next requests: take them, fail them, or never answer. */
export type ReceiverMode = 'ok' | 'fail' | 'hang';

export interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The webhook receiver's verdict on the signature (null: not a webhook request). */
  signatureValid: boolean | null;
  answered: ReceiverMode;
}

/**
 * A loopback receiver whose behaviour the test switches; it checks each webhook's signature the
 * way a receiver would (HMAC-SHA256 over `<timestamp>.<body>`), independently of the service.
 */
export async function startReceiver(secret: string) {
  let mode: ReceiverMode = 'ok';
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const timestamp = req.headers['x-orchestrator-timestamp'];
      const signature = req.headers['x-orchestrator-signature'];
      let signatureValid: boolean | null = null;
      if (typeof signature === 'string' && typeof timestamp === 'string') {
        const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`);
        const given = Buffer.from(signature);
        signatureValid = expected.length === given.length && timingSafeEqual(expected, given);
      }
      received.push({ path: req.url ?? '', headers: req.headers, body, signatureValid, answered: mode });
      if (mode === 'hang') {
        hanging.push(res);
        return;
      }
      res.writeHead(mode === 'ok' ? 200 : 503, { 'content-type': 'text/plain' }).end(mode === 'ok' ? 'ok' : 'receiver down');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    /** Requests the receiver took (answered 2xx). */
    accepted: () => received.filter((r) => r.answered === 'ok'),
    setMode: (next: ReceiverMode) => (mode = next),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const quietLogger = pino({ level: 'silent' });

/**
 * One instance's alerting over `store`: its own incident ledger and coordination (as a separate
 * process would have), the rules of `file`, and conditions read from the real store.
 */
export function alertInstance(store: StateStore, clock: Clock, file: AlertsConfigFile, env: Record<string, string>, ownerId: string) {
  const coordination = new MemoryCoordination({ cacheMaxEntries: 100, cacheMaxBytes: 1_000_000 });
  const ledger = createIncidentLedger({ store, coordination, clock, invalidator: createCacheInvalidator(coordination) });
  const alerts = createAlertService({
    config: resolveAlertsConfig(file, env),
    store,
    clock,
    logger: quietLogger,
    ownerId,
    sources: conditionSources(store, ledger),
  });
  return { alerts, ledger, coordination };
}
