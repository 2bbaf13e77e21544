import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_KEYS_FILE, demoKeyRotation, demoStateFolder, keepDemoKeys } from '../../src/demo/demo-keys.js';
import { parseApiKeys } from '../../src/config/keys.js';
import { tempDir } from '../support/config.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('the demo keys file', () => {
  it('lives beside the state file (or SQLite file); a database target uses the logs folder', () => {
    expect(demoStateFolder({ stateTarget: '/srv/orch/data/orchestrator-state.json', logsDir: '/srv/orch/logs' })).toBe('/srv/orch/data');
    expect(demoStateFolder({ stateTarget: 'sql:/srv/orch/data/state.db', logsDir: '/srv/orch/logs' })).toBe('/srv/orch/data');
    expect(demoStateFolder({ stateTarget: 'docdb:demo', logsDir: '/srv/orch/logs' })).toBe('/srv/orch/logs');
  });

  it('is made owner-only in a new folder, reused as it is, and replaced when renewed', () => {
    const folder = join(tempDir('demo-keys-unit-'), 'state');
    const made = keepDemoKeys(folder, { renew: false, now: new Date('2026-11-29T12:00:00Z') });
    expect(made).toMatchObject({ outcome: 'made', path: join(folder, DEMO_KEYS_FILE), createdAt: '2026-11-29T12:00:00.000Z' });
    expect(modeOf(made.path)).toBe(0o600);

    const reused = keepDemoKeys(folder, { renew: false });
    expect(reused).toEqual({ ...made, outcome: 'reused' });

    const renewed = keepDemoKeys(folder, { renew: true });
    expect(renewed.outcome).toBe('made');
    expect(renewed.keys.operator).not.toBe(made.keys.operator);
    expect(renewed.webhookSecret).not.toBe(made.webhookSecret);
    expect(JSON.parse(readFileSync(made.path, 'utf8')).keys).toEqual(renewed.keys);
  });

  it('tightens a reused file that came back readable by others', () => {
    const folder = tempDir('demo-keys-mode-');
    const made = keepDemoKeys(folder, { renew: false });
    chmodSync(made.path, 0o644);
    keepDemoKeys(folder, { renew: false });
    expect(modeOf(made.path)).toBe(0o600);
  });

  it('refuses a file that is not the demo keys, naming the way out, and leaves it alone', () => {
    const folder = tempDir('demo-keys-bad-');
    mkdirSync(folder, { recursive: true });
    const path = join(folder, DEMO_KEYS_FILE);
    writeFileSync(path, JSON.stringify({ keys: { viewer: 'v', operator: 'o' }, webhookSecret: 's' }));
    expect(() => keepDemoKeys(folder, { renew: false })).toThrow(`${path} does not hold a key for each role (viewer, operator, admin) and a webhook secret; run the demo with --new-keys to replace it`);
    writeFileSync(path, '{not json');
    expect(() => keepDemoKeys(folder, { renew: false })).toThrow('is not valid JSON');
    expect(readFileSync(path, 'utf8')).toBe('{not json');
  });

  it('gives one key per role as rotation entries the service parses', () => {
    const { keys } = keepDemoKeys(tempDir('demo-keys-rotation-'), { renew: false });
    const entries = parseApiKeys(demoKeyRotation(keys), undefined);
    expect(entries.map((e) => [e.label, e.role, e.secret])).toEqual([
      ['demo-viewer', 'viewer', keys.viewer],
      ['demo-operator', 'operator', keys.operator],
      ['demo-admin', 'admin', keys.admin],
    ]);
  });
});
