import { describe, expect, it } from 'vitest';
import { displayPath } from '../../src/common/display-path.js';

describe('displayPath', () => {
  const roots = { workspaceRoot: '/srv/orch/workspace', logsDir: '/srv/orch/logs' };

  it('names a file in the logs folder as logs/<path>', () => {
    expect(displayPath('/srv/orch/logs/knowledge-packs/pack-3.json', roots)).toBe('logs/knowledge-packs/pack-3.json');
    expect(displayPath('/srv/orch/logs', roots)).toBe('logs');
  });

  it('names a file in the workspace by its workspace-relative path', () => {
    expect(displayPath('/srv/orch/workspace/projects/app/README.md', roots)).toBe('projects/app/README.md');
    expect(displayPath('/srv/orch/workspace', roots)).toBe('.');
    expect(displayPath('/srv/orch/workspace/..notes.md', roots)).toBe('..notes.md');
  });

  it('prefers the logs folder when it lies inside the workspace', () => {
    expect(displayPath('/w/logs/a.jsonl', { workspaceRoot: '/w', logsDir: '/w/logs' })).toBe('logs/a.jsonl');
  });

  it('never gives the absolute path of a file outside both roots', () => {
    expect(displayPath('/etc/passwd', roots)).toBe('outside:passwd');
    expect(displayPath('/srv/orch/workspace-other/x.txt', roots)).toBe('outside:x.txt');
  });
});
