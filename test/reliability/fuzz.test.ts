import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { TEST_KEYS } from '../support/keys.js';
import { FIXTURE_AGENTS, RAISED_RATE_LIMITS } from '../support/runtime-service.js';
import { startService, type ServiceProcess } from '../support/service-process.js';

const CASES = 2000;

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1103515245 + 12345) >>> 0;
    return s / 2 ** 32;
  };
}

const TYPES = ['summarize-content', 'doc-sync', 'security-audit', 'build-refactor', 'agent-deploy', 'heartbeat', 'startup', '', 'nope', 'normalize-data'];

function fuzzValue(random: () => number, depth = 0): unknown {
  const pick = Math.floor(random() * (depth > 2 ? 6 : 9));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return random() < 0.5;
    case 2:
      return Math.floor(random() * 1e6) * (random() < 0.5 ? -1 : 1);
    case 3:
      return 'x'.repeat(Math.floor(random() * 300));
    case 4:
      return ['../etc', '/etc/passwd', 'approval-replay:x', '__proto__', '\u0000', '😀', 'ok'][Math.floor(random() * 7)];
    case 5:
      return random() * 1e308;
    case 6:
      return Array.from({ length: Math.floor(random() * 4) }, () => fuzzValue(random, depth + 1));
    default: {
      const keys = ['content', 'scope', 'idempotencyKey', 'requiresApproval', '__internal', 'approvedFromTaskId', 'format', 'constraints', 'changes', 'agentName', 'records', 'schema'];
      const obj: Record<string, unknown> = {};
      for (let i = 0; i < Math.floor(random() * 5); i += 1) obj[keys[Math.floor(random() * keys.length)]!] = fuzzValue(random, depth + 1);
      return obj;
    }
  }
}

function fuzzRequest(random: () => number): { body: string; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  const auth = random();
  if (auth < 0.7) headers.authorization = `Bearer ${TEST_KEYS.operator}`;
  else if (auth < 0.8) headers.authorization = `Bearer ${TEST_KEYS.viewer}`;
  else if (auth < 0.9) headers.authorization = ['Bearer', 'Basic abc', `Bearer ${'a'.repeat(5000)}`, 'bearer  x', ''][Math.floor(random() * 5)]!;
  const ct = random();
  headers['content-type'] = ct < 0.8 ? 'application/json' : ['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'multipart/form-data'][Math.floor(random() * 4)]!;
  if (random() < 0.2) headers['x-request-id'] = ['ok-id', 'bad id with spaces', 'x'.repeat(300), '../../'][Math.floor(random() * 4)]!;
  if (random() < 0.1) headers.origin = ['http://evil.example', 'null', 'http://127.0.0.1:1'][Math.floor(random() * 3)]!;
  const shape = random();
  let body: string;
  if (shape < 0.1) body = ['{', '[]', 'null', '"str"', '{"type":', '', '\u0000\u0001', '{"type":"summarize-content","payload":{"content":"x"}}}'][Math.floor(random() * 8)]!;
  else if (shape < 0.2) body = JSON.stringify(fuzzValue(random));
  else {
    const payload = fuzzValue(random);
    body = JSON.stringify({
      type: random() < 0.9 ? TYPES[Math.floor(random() * TYPES.length)] : fuzzValue(random),
      ...(random() < 0.9 ? { payload } : {}),
      ...(random() < 0.1 ? { extra: fuzzValue(random) } : {}),
    });
  }
  return { body, headers };
}

describe('fuzzed trigger requests', () => {
  let service: ServiceProcess;
  beforeAll(async () => {
    service = await startService({
      baseDir: tempDir(),
      config: {
        agentsDir: FIXTURE_AGENTS,
        schedulerEnabled: false,
        logLevel: 'warn',
        rateLimits: RAISED_RATE_LIMITS,
      },
    });
  });
  afterAll(async () => {
    await service?.kill();
  });

  it(`answers ${CASES} fuzzed bodies and headers without a 5xx, a crash or a broken error shape`, async () => {
    const seed = Number(process.env.FUZZ_SEED ?? 4242);
    const random = rng(seed);
    const failures: string[] = [];
    for (let i = 0; i < CASES; i += 1) {
      const { body, headers } = fuzzRequest(random);
      const res = await fetch(`${service.url}/api/tasks/trigger`, { method: 'POST', headers, body });
      const text = await res.text();
      if (res.status >= 500) failures.push(`#${i} ${res.status} ${body.slice(0, 200)} -> ${text.slice(0, 200)}`);
      if (res.status >= 400) {
        try {
          const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; requestId?: unknown } };
          if (typeof parsed.error?.code !== 'string' || typeof parsed.error.message !== 'string' || typeof parsed.error.requestId !== 'string') {
            failures.push(`#${i} bad error shape ${text.slice(0, 200)}`);
          }
        } catch {
          failures.push(`#${i} non-JSON error body ${text.slice(0, 200)}`);
        }
      } else if (![200, 202].includes(res.status)) {
        failures.push(`#${i} unexpected ${res.status}`);
      }
      if (!res.headers.get('x-request-id')) failures.push(`#${i} no X-Request-Id`);
    }
    expect(failures.slice(0, 20), `seed ${seed}`).toEqual([]);
    const health = await fetch(`${service.url}/health`);
    expect(health.status).toBe(200);
    expect(service.child.exitCode).toBeNull();
  }, 300_000);
});
