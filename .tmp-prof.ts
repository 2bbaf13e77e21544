import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchConfig } from './bench/lib/service.js';
import { runLoad } from './bench/lib/load.js';
import { testKeyRotation, TEST_KEYS, TEST_WEBHOOK_SECRET } from './test/support/keys.js';

const store = (process.argv[2] ?? 'json') as 'json' | 'sql';
const base = mkdtempSync(join(tmpdir(), 'orch-prof-'));
const config = { port: 0, metricsPort: 0, ...benchConfig(store, base, { concurrency: 4, runRetention: 10_000_000 }) };
writeFileSync(join(base, 'orchestrator.config.json'), JSON.stringify(config));
const child = spawn(process.execPath, ['--cpu-prof', '--cpu-prof-dir=/tmp/perfprof', join(process.cwd(), 'dist/src/main.js'), 'start'], {
  cwd: base,
  env: { PATH: process.env.PATH ?? '', ORCHESTRATOR_CONFIG: join(base, 'orchestrator.config.json'), API_KEY_ROTATION: testKeyRotation(), WEBHOOK_SECRET: TEST_WEBHOOK_SECRET, LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url: string = await new Promise((resolve) => {
  child.stdout!.on('data', (d: Buffer) => {
    const m = /"url":"([^"]+)"/.exec(d.toString());
    if (m) resolve(m[1]!);
  });
});
let n = 0;
const body = () => JSON.stringify({ type: 'doc-sync', payload: { idempotencyKey: `p-${n++}` } });
const r = await runLoad({ title: 'prof', url, connections: 50, durationSec: 6, method: 'POST', path: '/api/tasks/trigger', headers: { authorization: `Bearer ${TEST_KEYS.operator}` }, body: body(), setup: () => ({ body: body() }) });
console.log(store, Math.round(r.okRps), 'req/s', r.latencyMs);
child.kill('SIGINT');
await new Promise((r) => child.on('exit', r));
