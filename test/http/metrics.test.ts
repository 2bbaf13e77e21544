import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEYS, bearer } from '../support/keys.js';
import { startHarness, type Harness } from '../support/http-harness.js';
import { seriesValue } from '../support/metrics-text.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ withMetricsServer: true });
  h.metrics.setQueueDepthSource(async () => ({ ready: 4, held: 2, running: 1 }));
});
afterAll(async () => {
  await h.close();
});

const scrape = async () => {
  const res = await fetch(`http://127.0.0.1:${h.metricsServer!.port}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  return res.text();
};

const sample = (text: string, name: string, labels: string) => seriesValue(text, `${name}{${labels}}`);

describe('metrics', () => {
  it('counts requests by method, route pattern and status, with unknown paths as unmatched', async () => {
    for (let i = 0; i < 3; i++) await fetch(`${h.url}/health`);
    await fetch(`${h.url}/test/items/abc`, { headers: bearer(TEST_KEYS.viewer) });
    await fetch(`${h.url}/test/items/def`, { headers: bearer(TEST_KEYS.viewer) });
    await fetch(`${h.url}/test/notes`);
    await fetch(`${h.url}/no/such/path/${Date.now()}`);
    const text = await scrape();
    expect(sample(text, 'http_requests_total', 'method="GET",route="/health",status_code="200"')).toBe(3);
    expect(sample(text, 'http_requests_total', 'method="GET",route="/test/items/:itemId",status_code="200"')).toBe(2);
    expect(sample(text, 'http_requests_total', 'method="GET",route="/test/notes",status_code="401"')).toBe(1);
    expect(sample(text, 'http_requests_total', 'method="GET",route="unmatched",status_code="404"')).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_count', 'method="GET",route="/health"')).toBe(3);
  });

  it('reads the queue depth at scrape time and includes process metrics', async () => {
    const text = await scrape();
    expect(sample(text, 'orchestrator_queue_depth', 'state="ready"')).toBe(4);
    expect(sample(text, 'orchestrator_queue_depth', 'state="held"')).toBe(2);
    expect(sample(text, 'orchestrator_queue_depth', 'state="running"')).toBe(1);
    expect(text).toContain('process_cpu_user_seconds_total');
    h.metrics.setQueueDepthSource(async () => ({ ready: 0, held: 0, running: 3 }));
    expect(sample(await scrape(), 'orchestrator_queue_depth', 'state="running"')).toBe(3);
  });

  it('shows the event channel once there is one: announcements by direction, losses, and whether it listens', async () => {
    expect(await scrape()).not.toContain('orchestrator_event_channel');
    const observer = h.metrics.eventChannelObserver();
    expect(h.metrics.eventChannelObserver()).toBe(observer);
    let text = await scrape();
    for (const direction of ['sent', 'failed', 'received']) expect(sample(text, 'orchestrator_event_channel_announcements_total', `direction="${direction}"`)).toBe(0);
    expect(text).toContain('orchestrator_event_channel_connected 0');
    observer.connected(true);
    observer.announced(true);
    observer.announced(true);
    observer.announced(false);
    observer.heard();
    text = await scrape();
    expect(sample(text, 'orchestrator_event_channel_announcements_total', 'direction="sent"')).toBe(2);
    expect(sample(text, 'orchestrator_event_channel_announcements_total', 'direction="failed"')).toBe(1);
    expect(sample(text, 'orchestrator_event_channel_announcements_total', 'direction="received"')).toBe(1);
    expect(text).toContain('orchestrator_event_channel_connected 1');
    expect(text).toContain('orchestrator_event_channel_connection_losses_total 0');
    observer.connected(false);
    text = await scrape();
    expect(text).toContain('orchestrator_event_channel_connected 0');
    expect(text).toContain('orchestrator_event_channel_connection_losses_total 1');
  });

  it('answers 404 for anything but GET /metrics', async () => {
    const base = `http://127.0.0.1:${h.metricsServer!.port}`;
    expect((await fetch(`${base}/`)).status).toBe(404);
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(404);
  });
});
