import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemMonitor } from '../../../agents/system-monitor-agent/system-monitor.js';
import { quietSnapshot, withSnapshot } from '../../support/control-plane-snapshot.js';

describe('system-monitor result paths', () => {
  let base: string;
  const workspaceRoot = () => join(base, 'workspace');

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'monitor-paths-'));
    mkdirSync(join(base, 'workspace'));
    mkdirSync(join(base, 'state'));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('names the state folder it measured without the server path, also when it cannot be read', async () => {
    for (const [stateDirectory, shown] of [
      [join(base, 'state'), 'outside:state'],
      [join(base, 'workspace'), '.'],
      [join(base, 'gone'), 'outside:gone'],
    ] as const) {
      const snapshot = quietSnapshot();
      snapshot.service.stateDirectory = stateDirectory;
      const result = await systemMonitor(withSnapshot(snapshot, { type: 'health' }), { workspaceRoot: workspaceRoot(), runId: null });
      if (!result.success) throw new Error(result.error);
      expect(result.host.disk.path).toBe(shown);
      expect(JSON.stringify(result)).not.toContain(base);
    }
  });
});
