import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { alertmanagerBinary, binaryOnPath } from '../support/binaries.js';
import { tempDir } from '../support/config.js';
import { startGroupProcess, type GroupProcess } from '../support/group-process.js';
import { waitFor } from '../support/http.js';
import { TEST_WEBHOOK_SECRET } from '../support/keys.js';
import { closedPortUrl } from '../support/loopback-server.js';
import { REPO_ROOT } from '../support/paths.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';
import { SERVICE_ENTRY } from '../support/service-process.js';

const PROMETHEUS = binaryOnPath('prometheus');
const ALERTMANAGER = alertmanagerBinary();
const SKIP = !PROMETHEUS || !ALERTMANAGER;
const WHY = SKIP ? `skipped: needs Debian's prometheus and prometheus-alertmanager (.ci/run installs them); found ${PROMETHEUS ?? 'no prometheus'}, ${ALERTMANAGER ?? 'no alertmanager'}` : 'prometheus and alertmanager on loopback';

/** The shipped rules with their windows and `for` durations shortened so the chain fires and clears in seconds. */
function shortenedRules(): string {
  return readFileSync(join(REPO_ROOT, 'deploy', 'prometheus', 'alert-rules.yml'), 'utf8')
    .replace(/for: \d+m/g, 'for: 0s')
    .replace(/\[\d+m\]/g, '[15s]');
}

/**
 * The alerting sidecar's whole chain on loopback: Debian's Prometheus scrapes the built service's
 * metrics and evaluates the shipped rules, Debian's Alertmanager routes the firing alert to the
 * relay (the service binary's relay mode), which signs it into /webhook/alerts: the incident opens
 * in the ledger, and resolves when the rule clears.
 */
describe.skipIf(SKIP)(`the alerting sidecar chain (${WHY})`, () => {
  const processes: GroupProcess[] = [];
  let running: RuntimeService | null = null;
  afterAll(async () => {
    for (const p of processes.reverse()) await p.kill();
    await running?.service.kill();
  });

  it('opens an incident when the failure-rate rule fires and resolves it when the rule clears', async () => {
    running = await startRuntimeService({ retry: { maxAttempts: 1 } });
    const { service, api } = running;
    expect(service.metricsUrl).not.toBeNull();
    const metrics = new URL(service.metricsUrl!);

    const relayUrl = await closedPortUrl();
    processes.push(
      await startGroupProcess(process.execPath, [SERVICE_ENTRY, 'relay'], {
        env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRET: TEST_WEBHOOK_SECRET, RELAY_PORT: new URL(relayUrl).port, RELAY_TARGET_URL: `${service.url}/webhook/alerts` },
        readyLine: 'alert relay listening',
      }),
    );

    const dir = tempDir('alerting-chain-');
    const amUrl = await closedPortUrl();
    writeFileSync(
      join(dir, 'alertmanager.yml'),
      [
        'route:',
        '  receiver: ledger',
        '  group_by: ["alertname"]',
        '  group_wait: 0s',
        '  group_interval: 1s',
        '  repeat_interval: 1h',
        'receivers:',
        '  - name: ledger',
        '    webhook_configs:',
        `      - url: ${relayUrl}/`,
        '        send_resolved: true',
        '',
      ].join('\n'),
    );
    processes.push(
      await startGroupProcess(
        ALERTMANAGER!,
        [`--config.file=${join(dir, 'alertmanager.yml')}`, `--storage.path=${join(dir, 'am-data')}`, `--web.listen-address=${new URL(amUrl).host}`, '--cluster.listen-address='],
        { readyUrl: `${amUrl}/-/ready` },
      ),
    );

    writeFileSync(join(dir, 'alert-rules.yml'), shortenedRules());
    writeFileSync(
      join(dir, 'prometheus.yml'),
      [
        'global:',
        '  scrape_interval: 1s',
        '  evaluation_interval: 1s',
        'rule_files:',
        `  - ${join(dir, 'alert-rules.yml')}`,
        'alerting:',
        '  alertmanagers:',
        '    - static_configs:',
        `        - targets: ["${new URL(amUrl).host}"]`,
        'scrape_configs:',
        '  - job_name: orchestrator',
        '    static_configs:',
        `      - targets: ["${metrics.host}"]`,
        '',
      ].join('\n'),
    );
    const promUrl = await closedPortUrl();
    processes.push(
      await startGroupProcess(
        PROMETHEUS!,
        [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'prom-data')}`, `--web.listen-address=${new URL(promUrl).host}`],
        { readyUrl: `${promUrl}/-/ready`, timeoutMs: 30_000 },
      ),
    );

    const fail = async (key: string) =>
      expect((await api.trigger('summarize-content', { content: 'x', mode: 'logical-failure', idempotencyKey: key })).status).toBe(202);
    // A counter's first sample is no increase: one failure first, until Prometheus has scraped its
    // series; then three more, which the rule's window counts.
    await fail('chain-fail-0');
    await waitFor(async () => {
      const query = encodeURIComponent('orchestrator_runs_finished_total{status="failed"}');
      const answer = (await (await fetch(`${promUrl}/api/v1/query?query=${query}`)).json()) as { data: { result: unknown[] } };
      return answer.data.result.length > 0 ? true : undefined;
    }, 30_000, 'Prometheus to scrape the failed-runs series');
    for (const key of ['chain-fail-1', 'chain-fail-2', 'chain-fail-3']) await fail(key);
    const findIncident = async () => {
      const listed = (await api.get('/api/incidents?includeResolved=true&limit=200')).body.incidents as Array<Record<string, any>>;
      return listed.find((i) => i.labels?.alertname === 'OrchestratorFailureRate' || i.title === 'More than half of the runs ended in the last 15 minutes failed');
    };
    const opened = await waitFor(async () => {
      const incident = await findIncident();
      return incident && incident.status !== 'resolved' ? incident : undefined;
    }, 60_000, 'the failure-rate incident to open');
    expect(opened).toMatchObject({ classification: 'alert', severity: 'warning' });

    // No more failures: the 15 s window empties, the rule clears, Alertmanager sends the recovery.
    const resolved = await waitFor(async () => {
      const incident = await findIncident();
      return incident?.status === 'resolved' ? incident : undefined;
    }, 90_000, 'the failure-rate incident to resolve');
    expect(resolved.incidentId).toBe(opened.incidentId);
  }, 180_000);
});
