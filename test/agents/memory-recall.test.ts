import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recallAgentMemory, redactText, resultHighlights, createHeartbeatReader } from '../../src/agents/memory-recall.js';
import { DomainError } from '../../src/domain/errors.js';
import { FileStateStore } from '../../src/store/file/file-state-store.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import { writeHeartbeatAtomically } from '../../src/common/resident-service.js';
import { agentRegistry, registeredAgent } from '../support/agents.js';
import { tempDir } from '../support/config.js';
import { insertIfAbsent, makeRun } from '../support/runs.js';

describe('redactText', () => {
  it('masks key=value secrets by key name, keeping the key', () => {
    expect(redactText('connect with API_KEY=sk_live_abc123 and password: hunter2, token="t0k"')).toBe(
      'connect with API_KEY=[redacted:secret] and password: [redacted:secret], token=[redacted:secret]',
    );
  });
  it('masks bearer tokens', () => {
    expect(redactText('sent Authorization: Bearer eyJhbGciOi.J9abc-def')).toBe('sent Authorization: [redacted:bearer-token]');
  });
  it('masks long high-entropy strings but not UUIDs or plain words', () => {
    const token = 'ghp_8fK2mQ9xLr4TzW7vBn3YpD6sHc1JaE5uGo0i';
    expect(redactText(`leaked ${token} here`)).toBe('leaked [redacted:high-entropy] here');
    expect(redactText('run 3f2b8c1e-9d4a-4b6e-8f00-1a2b3c4d5e6f ok')).toBe('run 3f2b8c1e-9d4a-4b6e-8f00-1a2b3c4d5e6f ok');
    expect(redactText('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')).toBe('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa');
  });
  it('masks private key blocks whole', () => {
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----';
    expect(redactText(`key file:\n${pem}\ndone`)).toBe('key file:\n[redacted:private-key]\ndone');
  });
  it('masks e-mail addresses', () => {
    expect(redactText('reply to jane.doe+ops@example.co.uk today')).toBe('reply to [redacted:email] today');
  });
  it('masks absolute filesystem paths but not URLs or relative paths', () => {
    expect(redactText('wrote /home/alice/project/logs/out.json and C:\\Users\\bob\\x.txt')).toBe('wrote [redacted:path] and [redacted:path]');
    expect(redactText('see https://example.com/docs/guide and src/agents/overview.ts')).toBe('see https://example.com/docs/guide and src/agents/overview.ts');
  });
});

describe('resultHighlights', () => {
  it('lists top-level keys and keeps only short scalar values', () => {
    expect(resultHighlights({ posture: 'clear', count: 3, ok: true, long: 'x'.repeat(300), nested: { a: 1 } })).toEqual({
      keys: ['posture', 'count', 'ok', 'long', 'nested'],
      values: { posture: 'clear', count: 3, ok: true },
    });
    expect(resultHighlights(null)).toEqual({ keys: [], values: {} });
  });
});

const doc = registeredAgent('doc-specialist', ['drift-repair'], {
  name: 'Documentation Specialist',
  description: 'd',
  lifecycleMode: 'service-expected',
  serviceExpected: true,
  serviceUnitName: 'orchestrator-doc-specialist.service',
  entrypoint: null,
  serviceStatePath: 'logs/doc-specialist-service.json',
  model: { tier: 'standard', provider: null, name: null },
  entrypointPath: null,
  entrypointMissingReason: 'none',
});
const registry = agentRegistry([doc]);

describe('recallAgentMemory', () => {
  const stores: FileStateStore[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
  });

  async function setup() {
    const dir = tempDir('recall-');
    const store = new FileStateStore(join(dir, 'data', 'state.json'));
    await store.open();
    stores.push(store);
    const runs: RunRecord[] = [];
    for (let i = 0; i < 5; i++) {
      const at = new Date(Date.parse('2026-03-01T10:00:00.000Z') + i * 60_000).toISOString();
      runs.push(
        makeRun({
          runId: `drift-${i}`,
          type: 'drift-repair',
          status: i === 1 ? 'failed' : 'success',
          queueState: null,
          createdAt: at,
          finishedAt: at,
          operatorSummary: `pack written to /srv/orch/logs/knowledge-packs/p${i}.json for ops@example.com`,
          result: { driftDetected: i % 2 === 0, filesAudited: i, note: 'token=abcd1234' },
        }),
      );
    }
    runs.push(makeRun({ runId: 'other', type: 'security-audit', status: 'success', queueState: null }));
    for (const run of runs) await store.mutateRun(run.runId, insertIfAbsent(run));
    const logsDir = join(dir, 'logs');
    mkdirSync(logsDir);
    writeHeartbeatAtomically(join(logsDir, 'doc-specialist-service.json'), {
      agentId: 'doc-specialist', pid: 7, startedAt: '2026-03-01T09:00:00.000Z', heartbeatAt: '2026-03-01T10:10:00.000Z', status: 'running', intervalMs: 30000,
    });
    return { registry, store, serviceHeartbeat: createHeartbeatReader(logsDir) };
  }

  it('pages the agent lane runs newest first, with totals and the service heartbeat', async () => {
    const deps = await setup();
    const first = await recallAgentMemory(deps, { agentId: 'doc-specialist', limit: 2, offset: 0, includeSensitive: false });
    expect(first.runs.map((r) => r.runId)).toEqual(['drift-4', 'drift-3']);
    expect(first.page).toEqual({ limit: 2, offset: 0, returned: 2, total: 5 });
    expect(first.totals).toEqual({ runs: 5, byStatus: expect.objectContaining({ success: 4, failed: 1 }), lastRunAt: '2026-03-01T10:04:00.000Z' });
    expect(first.serviceHeartbeat).toMatchObject({ agentId: 'doc-specialist', status: 'running', pid: 7 });
    const last = await recallAgentMemory(deps, { agentId: 'doc-specialist', limit: 2, offset: 4, includeSensitive: false });
    expect(last.runs.map((r) => r.runId)).toEqual(['drift-0']);
  });

  it('redacts by default and returns raw values only when includeSensitive is set', async () => {
    const deps = await setup();
    const redacted = await recallAgentMemory(deps, { agentId: 'doc-specialist', limit: 1, offset: 0, includeSensitive: false });
    expect(redacted.redacted).toBe(true);
    expect(redacted.runs[0]!.operatorSummary).toBe('pack written to [redacted:path] for [redacted:email]');
    expect(redacted.runs[0]!.highlights).toEqual({
      keys: ['driftDetected', 'filesAudited', 'note'],
      values: { driftDetected: true, filesAudited: 4, note: 'token=[redacted:secret]' },
    });
    const raw = await recallAgentMemory(deps, { agentId: 'doc-specialist', limit: 1, offset: 0, includeSensitive: true });
    expect(raw.redacted).toBe(false);
    expect(raw.runs[0]!.operatorSummary).toContain('/srv/orch/logs/knowledge-packs/p4.json');
    expect(raw.runs[0]!.highlights.values.note).toBe('token=abcd1234');
  });

  it('answers not_found for an unknown agent', async () => {
    const deps = await setup();
    const err = await recallAgentMemory(deps, { agentId: 'nobody', limit: 20, offset: 0, includeSensitive: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('not_found');
  });
});
