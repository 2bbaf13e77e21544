import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOrch } from '../../src/orch.js';
import { signAlertDelivery } from '../../src/incidents/alert-signature.js';
import { tempDir } from '../support/config.js';
import { orch } from '../support/cli.js';
import { waitFor, waitForTerminal } from '../support/http.js';
import { TEST_KEYS, TEST_WEBHOOK_SECRET } from '../support/keys.js';
import { REPO_ROOT } from '../support/paths.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

/*
 * Every verb of `orch` against a live service (its own process group, killed afterwards), its
 * output checked against the fields the API answers for the same thing. The expectations are
 * built from the API's JSON here, never from the command line's own code: a field the API
 * renames, or one the command line reads under another name, fails a test.
 */

const TYPE = 'summarize-content';

/** An API instant as the command line shows it. */
const shown = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;

/** The output line that starts with `first` (a table row's first cell). */
function lineOf(stdout: string, first: string): string {
  const line = stdout.split('\n').find((l) => l.startsWith(`${first} `) || l === first);
  expect(line, `a line starting with ${first} in:\n${stdout}`).toBeDefined();
  return line!;
}

/**
 * The first column of a table, a wrapped cell joined back: a line whose other columns are empty
 * continues the cell above it.
 */
function firstColumn(stdout: string): string[] {
  const [header, ...rows] = stdout.trimEnd().split('\n');
  const width = /^\S+(?: \S+)*\s+/.exec(header!)![0].length;
  const cells: string[] = [];
  for (const row of rows) {
    const piece = row.slice(0, width).trim();
    if (row.slice(width).trim() === '' && cells.length > 0) cells[cells.length - 1] += piece;
    else cells.push(piece);
  }
  return cells;
}

/** `label  value` of `orch show`. */
function field(stdout: string, label: string): string {
  const line = stdout.split('\n').find((l) => l.startsWith(`${label} `));
  return line === undefined ? '' : line.slice(label.length).trim();
}

describe('each orch verb against a live service, compared with the API', () => {
  let svc: RuntimeService;
  let env: NodeJS.ProcessEnv;
  const get = async (path: string) => {
    const res = await svc.api.get(path, TEST_KEYS.operator);
    expect(res.status, path).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    svc = await startRuntimeService();
    env = { ORCH_URL: svc.service.url, ORCH_API_KEY: TEST_KEYS.operator, XDG_CONFIG_HOME: tempDir('orch-verbs-') };
  });
  afterAll(async () => {
    await svc?.service.kill();
  });

  it('run --watch, watch, show and logs print what the run record and its logs say', async () => {
    const ran = await orch(['run', TYPE, 'content=Compared with the API.', '--key', 'verbs-ok', '--watch'], env);
    expect(ran.code).toBe(0);
    const run = await get('/api/tasks/runs/verbs-ok');
    expect(ran.stdout.split('\n')[0]).toBe(`queued  ${run.runId}  ${run.type}`);
    expect(lineOf(ran.stdout, run.runId)).toMatch(new RegExp(`^${run.runId}  ${run.status}  ${run.type}  `));

    const watched = await orch(['watch', 'verbs-ok'], env);
    expect(watched.code).toBe(0);
    const events = run.events as Array<{ at: string; name: string }>;
    for (const event of events) expect(watched.stdout).toContain(`${event.at.slice(11, 19)} UTC`);
    expect(watched.stdout).toContain(run.operatorSummary);

    const show = await orch(['show', 'verbs-ok'], env);
    expect(show.code).toBe(0);
    expect(field(show.stdout, 'run')).toBe(run.runId);
    expect(field(show.stdout, 'type')).toBe(run.type);
    expect(field(show.stdout, 'status')).toBe(run.status);
    expect(field(show.stdout, 'requested by')).toBe(run.requestedBy);
    expect(field(show.stdout, 'created')).toBe(shown(run.createdAt));
    expect(field(show.stdout, 'finished')).toBe(shown(run.finishedAt));
    expect(field(show.stdout, 'attempts')).toBe(String(run.attempt));
    expect(show.stdout).toContain(`\n${run.operatorSummary}\n`);
    for (const action of run.recommendedNextActions as string[]) expect(show.stdout).toContain(`  - ${action}`);

    const logs = await orch(['logs', 'verbs-ok'], env);
    expect(logs.code).toBe(0);
    const apiLogs = await get('/api/tasks/runs/verbs-ok/logs');
    for (const attempt of apiLogs.attempts as Array<{ attemptId: string; lines: Array<{ at: string; line: string }> }>) {
      expect(logs.stdout).toContain(`# ${attempt.attemptId}`);
      for (const l of attempt.lines) expect(logs.stdout).toContain(`${l.at.slice(11, 19)} UTC ${l.line}`);
    }
  });

  it('a held run says "awaiting approval" in run, runs and show; its status stays pending', async () => {
    const ran = await orch(['run', TYPE, 'content=Needs a yes.', 'requiresApproval=true'], env);
    expect(ran.code).toBe(0);
    const runId = /^queued {2}(\S+) {2}/.exec(ran.stdout)![1]!;
    expect(ran.stdout).toBe(`queued  ${runId}  ${TYPE}  awaiting approval\n`);
    const run = await get(`/api/tasks/runs/${runId}`);
    expect(run).toMatchObject({ status: 'pending', workflow: { awaitingApproval: true } });

    const held = await get('/api/tasks/runs?queueState=held');
    const listed = await orch(['runs', '--held'], env);
    expect(listed.code).toBe(0);
    const rows = listed.stdout.trim().split('\n').slice(1);
    expect(rows.map((r) => r.split(/\s+/)[0])).toEqual(held.items.map((r: { runId: string }) => r.runId));
    expect(lineOf(listed.stdout, runId)).toMatch(new RegExp(`^${runId}\\s+${run.type}\\s+awaiting approval\\s+${shown(run.createdAt)}`));

    // By its first 8 characters, as an operator types it.
    const show = await orch(['show', runId.slice(0, 8)], env);
    expect(show.code).toBe(0);
    expect(field(show.stdout, 'run')).toBe(run.runId);
    expect(field(show.stdout, 'status')).toBe(`${run.status}, awaiting approval`);
    expect(field(show.stdout, 'approval')).toBe(run.approval.status);
  });

  it('runs lists what the runs route answers, row for row', async () => {
    const page = await get('/api/tasks/runs?limit=20');
    const listed = await orch(['runs'], env);
    expect(listed.code).toBe(0);
    const [header, ...rows] = listed.stdout.trim().split('\n');
    expect(header).toMatch(/^RUN\s+TYPE\s+STATUS\s+CREATED\s+TOOK\s+SUMMARY$/);
    expect(rows.map((r) => r.split(/\s+/)[0])).toEqual(page.items.map((r: { runId: string }) => r.runId));
    for (const run of page.items) {
      const state = run.workflow.awaitingApproval ? 'awaiting approval' : run.status;
      expect(lineOf(listed.stdout, run.runId)).toMatch(new RegExp(`^${run.runId}\\s+${run.type}\\s+${state}\\s+${shown(run.createdAt)}`));
      if (run.operatorSummary) expect(lineOf(listed.stdout, run.runId)).toContain(run.operatorSummary.slice(0, 40));
    }
    const byPrefix = await orch(['runs', '--id', 'verbs-o'], env);
    expect(byPrefix.stdout.trim().split('\n').slice(1).map((r) => r.split(/\s+/)[0])).toEqual(
      (await get('/api/tasks/runs?idPrefix=verbs-o')).items.map((r: { runId: string }) => r.runId),
    );
  });

  it('a short id that starts several runs names them, exit 2; an unknown id stays not_found', async () => {
    for (const key of ['verbs-twin-1', 'verbs-twin-2']) await svc.api.trigger(TYPE, { content: key, idempotencyKey: key });
    const ambiguous = await orch(['show', 'verbs-twin'], env);
    expect(ambiguous.code).toBe(2);
    const twins = (await get('/api/tasks/runs?idPrefix=verbs-twin')).items as Array<{ runId: string; type: string }>;
    expect(ambiguous.stderr.split('\n')[0]).toBe(`orch: 'verbs-twin' is the start of ${twins.length} ids; give more of it:`);
    for (const twin of twins) expect(ambiguous.stderr).toMatch(new RegExp(`\\n  ${twin.runId}  ${twin.type}  `));
    const unknown = await orch(['show', 'verbs-none-such'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^orch: not_found: /);
  });

  it('rerun and cancel take a short id and answer what the run records say', async () => {
    const rerun = await orch(['rerun', 'verbs-ok', 'content=Once more.', '--key', 'verbs-again'], env);
    expect(rerun.code).toBe(0);
    const again = await get('/api/tasks/runs/verbs-again');
    expect(rerun.stdout).toBe(`queued  ${again.runId}  ${again.type}\n`);
    expect(again.rerunOf).toBe('verbs-ok');
    await waitForTerminal(svc.api, 'verbs-again');

    await svc.api.trigger(TYPE, { content: 'slow', sleepMs: 20_000, idempotencyKey: 'verbs-slow-one' });
    await waitFor(async () => ((await svc.api.run('verbs-slow-one')).body.status === 'running' ? true : undefined));
    const cancel = await orch(['cancel', 'verbs-slow', 'not', 'needed'], env);
    expect(cancel.code).toBe(0);
    const cancelled = await get('/api/tasks/runs/verbs-slow-one');
    expect(cancelled.cancellation).toMatchObject({ reason: 'not needed' });
    expect(cancel.stdout).toBe('verbs-slow-one  cancelling\n');
  });

  it('approvals shows the risk level and requester the API sends; approve and reject take a short id', async () => {
    const one = (await svc.api.trigger(TYPE, { content: 'Approve me.', requiresApproval: true })).body;
    const two = (await svc.api.trigger(TYPE, { content: 'Reject me.', requiresApproval: true, idempotencyKey: 'verbs-to-reject' })).body;
    const pending = (await get('/api/approvals/pending')).pending as Array<{ taskId: string; runId: string; type: string; requestedBy: string; requestedAt: string; impact: { riskLevel: string } }>;
    const listed = await orch(['approvals'], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(/^ID\s+TYPE\s+RISK\s+REQUESTED BY\s+REQUESTED\s+EXPIRES\s+RUN$/);
    for (const item of pending) {
      expect(lineOf(listed.stdout, item.taskId)).toMatch(
        new RegExp(`^${item.taskId}\\s+${item.type}\\s+${item.impact.riskLevel}\\s+${item.requestedBy}\\s+${shown(item.requestedAt)}\\s+never\\s+${item.runId}$`),
      );
    }

    const approved = await orch(['approve', one.taskId.slice(0, 8), 'fine'], env);
    expect(approved.code).toBe(0);
    const closed = await get(`/api/tasks/runs/${one.runId}`);
    expect(approved.stdout).toBe(`approved  ${one.taskId}  replay run ${closed.approval.replayRunId}\n`);

    const rejected = await orch(['reject', 'verbs-to-rej', 'no'], env);
    expect(rejected.code).toBe(0);
    expect(rejected.stdout).toBe(`rejected  ${two.taskId}\n`);
    expect(await get('/api/tasks/runs/verbs-to-reject')).toMatchObject({ status: 'failed', failureReason: 'approval_rejected' });
  });

  it('incidents and ack print what the incidents route answers', async () => {
    const body = JSON.stringify({
      version: '4',
      status: 'firing',
      alerts: [{ status: 'firing', labels: { alertname: 'DiskFull', severity: 'critical' }, annotations: { summary: 'disk almost full on db-1' }, startsAt: new Date().toISOString(), endsAt: '0001-01-01T00:00:00Z', fingerprint: 'verbs-disk' }],
    });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const delivered = await fetch(`${svc.service.url}/webhook/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-orchestrator-timestamp': timestamp, 'x-orchestrator-signature': signAlertDelivery(TEST_WEBHOOK_SECRET, timestamp, body) },
      body,
    });
    expect(delivered.status).toBe(200);
    const incidents = (await get('/api/incidents')).incidents as Array<Record<string, string | boolean>>;
    expect(incidents.length).toBeGreaterThan(0);
    const listed = await orch(['incidents'], env);
    expect(listed.code).toBe(0);
    for (const incident of incidents) {
      expect(lineOf(listed.stdout, String(incident.incidentId))).toMatch(
        new RegExp(`^${incident.incidentId}\\s+${incident.severity}\\s+${incident.status}\\s+${incident.title}\\s+${incident.acknowledged ? 'yes' : 'no'}\\s+${incident.owner}\\s+${shown(String(incident.lastSeenAt))}$`),
      );
    }
    const target = String(incidents[0]!.incidentId);
    const ack = await orch(['ack', target], env);
    expect(ack).toMatchObject({ code: 0, stdout: `acknowledged  ${target}\n` });
    expect((await get(`/api/incidents/${target}`)).acknowledged).toBe(true);
  });

  it('schedules add, pause, list and rm match the schedules route', async () => {
    const added = await orch(['schedules', 'add', TYPE, '--id', 'verbs-nightly', '--cron', '0 2 * * *', 'content=Nightly.'], env);
    expect(added.code).toBe(0);
    const created = await get('/api/schedules/verbs-nightly');
    expect(added.stdout).toBe(`added  ${created.id}  next ${shown(created.nextRunAt[0])}\n`);
    expect((await orch(['schedules', 'pause', 'verbs-nightly'], env)).stdout).toBe('paused  verbs-nightly\n');
    // A schedule that fires a flow: its type column names the flow's size.
    const steps = ['a', 'b'].map((key) => ({ key, type: TYPE, payload: { content: `Step ${key}.` } }));
    expect((await svc.api.post('/api/schedules', { id: 'verbs-flow', cron: '0 3 * * *', flow: { steps } })).status).toBe(201);
    type Listed = { id: string; type: string | null; flow: { steps: unknown[] } | null; cron: string; timezone: string; builtIn: boolean; enabled: boolean };
    const schedules = (await get('/api/schedules')).schedules as Listed[];
    const listed = await orch(['schedules'], env);
    const work = (s: Listed) => (s.flow ? `flow \\(${s.flow.steps.length} steps\\)` : s.type);
    for (const s of schedules) {
      const state = s.builtIn ? 'built-in' : s.enabled ? 'enabled' : 'paused';
      expect(lineOf(listed.stdout, s.id)).toMatch(new RegExp(`^${s.id}\\s+${work(s)}\\s+${s.cron.replace(/\*/g, '\\*')}\\s+${s.timezone}\\s+${state}`));
    }
    expect((await orch(['schedules', 'rm', 'verbs-nightly'], env)).stdout).toBe('removed  verbs-nightly\n');
    expect((await orch(['schedules', 'rm', 'verbs-flow'], env)).stdout).toBe('removed  verbs-flow\n');
    expect((await svc.api.get('/api/schedules/verbs-nightly')).status).toBe(404);
  });

  it("catalog shows each type's purpose as the catalog route sends it", async () => {
    const catalog = (await get('/api/tasks/catalog')).tasks as Array<{ type: string; purpose: string; approvalGated: boolean; operationalStatus: string; executor: string }>;
    const listed = await orch(['catalog'], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(/^TYPE\s+APPROVAL\s+STATUS\s+RUNS AS\s+PURPOSE$/);
    for (const entry of catalog) {
      const line = lineOf(listed.stdout, entry.type);
      expect(line.endsWith(`  ${entry.purpose}`), line).toBe(true);
      expect(line).toMatch(new RegExp(`^${entry.type}\\s+${entry.approvalGated ? 'required' : '-'}\\s+${entry.operationalStatus}\\s+${entry.executor}\\s`));
    }
  });

  it('health and login print what /health and /api/auth/me answer; logout forgets the login', async () => {
    const health = await orch(['health'], env);
    const apiHealth = await get('/health');
    expect(field(health.stdout, 'status')).toBe(apiHealth.status);
    expect(field(health.stdout, 'checked')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    const login = await orch(['login', '--url', svc.service.url, '--api-key', TEST_KEYS.viewer], env);
    const me = (await svc.api.get('/api/auth/me', TEST_KEYS.viewer)).body;
    expect(login.stdout).toContain(`as ${me.actor} (${me.role})`);
    expect((await orch(['logout'], env)).stdout).toBe(`removed ${join(String(env.XDG_CONFIG_HOME), 'orch', 'config.json')}\n`);
  });

  it('a refused trigger prints every validation detail the API sends, field and message', async () => {
    const payload = { type: 'not-a-kind' };
    const refused = await svc.api.trigger('security-audit', payload);
    expect(refused.status).toBe(400);
    const details = refused.body.error.details as Array<{ path: string; message: string }>;
    expect(details.length).toBeGreaterThan(1);
    const result = await orch(['run', 'security-audit', 'type=not-a-kind'], env);
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^orch: invalid_request: ${refused.body.error.message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(request [\\w-]+\\)$`));
    expect(lines.slice(1)).toEqual(details.map((d) => `  ${d.path.replace(/^\/body\//, '').replace(/\//g, '.')}: ${d.message}`));
  });

  it('tables fit $COLUMNS and keep every id whole', async () => {
    const page = await get('/api/tasks/runs?limit=20');
    const pending = (await get('/api/approvals/pending')).pending as Array<{ taskId: string }>;
    for (const [argv, ids] of [
      [['runs'], page.items.map((r: { runId: string }) => r.runId)],
      [['approvals'], pending.map((p) => p.taskId)],
      [['catalog'], []],
      [['incidents'], []],
    ] as Array<[string[], string[]]>) {
      const result = await orch(argv, { ...env, COLUMNS: '80' });
      expect(result.code, argv.join(' ')).toBe(0);
      for (const line of result.stdout.trimEnd().split('\n')) expect([...line].length, `${argv.join(' ')}: ${line}`).toBeLessThanOrEqual(80);
      if (ids.length > 0) expect(firstColumn(result.stdout)).toEqual(ids);
    }
  });

  it("bridge serve answers a signed /orch runs with the runs the companion route lists", async () => {
    const config = join(tempDir('orch-bridge-'), 'bridge.json');
    writeFileSync(config, JSON.stringify({ url: svc.service.url, users: { alice: { keyEnv: 'VERBS_KEY_ALICE' } }, signingSecretEnv: 'VERBS_BRIDGE_SECRET' }));
    const secret = 'verbs-bridge-secret-0001';
    const stop = new AbortController();
    let stdout = '';
    const serving = runOrch({
      argv: ['bridge', 'serve', '--config', config, '--port', '0'],
      env: { ...env, VERBS_KEY_ALICE: TEST_KEYS.operator, VERBS_BRIDGE_SECRET: secret },
      stdout: { write: (t: string) => (stdout += t), isTTY: false },
      stderr: { write: () => true, isTTY: false },
      readStdin: async () => '',
      signal: stop.signal,
    });
    try {
      const bridgeUrl = await waitFor(async () => /^bridge listening on (\S+) for /.exec(stdout)?.[1]);
      const body = JSON.stringify({ text: '/orch runs', user: 'alice', channel: 'ops' });
      const timestamp = String(Math.floor(Date.now() / 1000));
      const res = await fetch(bridgeUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-orchestrator-timestamp': timestamp, 'x-orchestrator-signature': signAlertDelivery(secret, timestamp, body) },
        body,
      });
      expect(res.status).toBe(200);
      const { reply } = (await res.json()) as { reply: string };
      const companion = await get('/api/companion/runs');
      expect(reply.split('\n')[0]).toBe(`Recent runs (${companion.total} in all):`);
      for (const run of (companion.runs as Array<{ runId: string; type: string; status: string }>).slice(0, 10)) {
        expect(reply).toContain(`- ${run.runId} · ${run.type} · ${run.status}`);
      }
    } finally {
      stop.abort();
    }
    expect(await serving).toBe(0);
  });

  it('ends quietly when the reader of its output goes away (orch catalog | head)', async () => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'orch.js'), 'catalog'], { env: { ...env, PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    // The reader is gone before the answer arrives: every write meets EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });
});
