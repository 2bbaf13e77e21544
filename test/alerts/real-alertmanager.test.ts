import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { openStateStore } from '../../src/store/open.js';
import { tempDir } from '../support/config.js';
import { alertmanagerBinary } from '../support/binaries.js';
import { startGroupProcess } from '../support/group-process.js';
import { closedPortUrl } from '../support/loopback-server.js';
import { alertInstance } from './harness.js';

const BINARY = alertmanagerBinary();
const SKIP_REASON = 'no alertmanager binary: install Debian prometheus-alertmanager (.ci/run does)';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface AmAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  status: { state: string };
}

async function getAlerts(url: string): Promise<AmAlert[]> {
  const response = await fetch(`${url}/api/v2/alerts`);
  expect(response.status).toBe(200);
  return (await response.json()) as AmAlert[];
}

/** Starts the real Alertmanager on loopback (clustering off, its own storage) and waits until it is ready. */
async function startAlertmanager(binary: string): Promise<string> {
  const dir = tempDir('alertmanager-');
  const configFile = join(dir, 'alertmanager.yml');
  writeFileSync(configFile, 'route:\n  receiver: nobody\nreceivers:\n  - name: nobody\n');
  const url = await closedPortUrl();
  const alertmanager = await startGroupProcess(
    binary,
    [`--config.file=${configFile}`, `--storage.path=${join(dir, 'data')}`, `--web.listen-address=${new URL(url).host}`, '--cluster.listen-address='],
    { readyUrl: `${url}/-/ready`, timeoutMs: 15_000 },
  );
  cleanups.push(alertmanager.kill);
  return url;
}

describe.skipIf(!BINARY)(`the real Alertmanager on loopback (${BINARY ?? SKIP_REASON})`, () => {
  it('receives the firing push, shows it in its own API, and drops it once the recovery push ends it', async () => {
    const url = await startAlertmanager(BINARY!);
    const store = openStateStore(join(tempDir('alerts-am-'), 'state.json'));
    await store.open();
    cleanups.push(() => store.close());
    const file = {
      sinks: { am: { kind: 'alertmanager' as const, url, allowPrivate: true } },
      rules: [{ id: 'incident-opened', match: { incident: 'opened' as const }, severity: 'critical' as const, dedupeWindowSeconds: 600, sinks: ['am'] }],
    };
    const { alerts, ledger } = alertInstance(store, systemClock, file, {}, 'instance-a');

    const incident = await ledger.reportSignal({ fingerprint: 'db:down', classification: 'persistence', severity: 'critical', title: 'database unavailable', summary: 'writes fail' });
    await alerts.evaluate();
    await alerts.deliver();
    expect((await alerts.list(10)).alerts[0]!.deliveries[0]).toMatchObject({ status: 'delivered', attempts: 1 });

    const shown = await getAlerts(url);
    expect(shown).toHaveLength(1);
    expect(shown[0]!.labels).toMatchObject({ alertname: 'incident-opened', severity: 'critical', service: 'orchestrator', incidentId: incident.incidentId });
    expect(shown[0]!.annotations.summary).toContain('database unavailable');
    expect(shown[0]!.status.state).toBe('active');

    await ledger.resolveSignal('db:down');
    await alerts.evaluate();
    await alerts.deliver();
    expect((await alerts.list(10)).alerts[0]).toMatchObject({ kind: 'resolved', deliveries: [{ status: 'delivered' }] });
    // A resolved alert (endsAt passed) is no longer among Alertmanager's alerts.
    const deadline = Date.now() + 5000;
    while ((await getAlerts(url)).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await getAlerts(url)).toEqual([]);
  });
});
