import { describe, expect, it } from 'vitest';
import { displayText } from '../../src/worker-sdk/display-text.js';

const roots = { workspaceRoot: '/srv/orchestrator/workspace', logsDir: '/srv/orchestrator/logs' };

describe('displayText', () => {
  it('writes paths under the workspace relative to it and paths under the logs folder as logs/', () => {
    const output = [
      "Error: Cannot find module '/srv/orchestrator/workspace/services/cart/does-not-exist.js'",
      "    at file:///srv/orchestrator/workspace/services/cart/test/a.test.mjs:3:9",
      "EISDIR: illegal operation on a directory, open '/srv/orchestrator/logs/community-drafts.jsonl'",
      'cwd /srv/orchestrator/workspace',
    ].join('\n');
    expect(displayText(output, roots)).toBe(
      [
        "Error: Cannot find module 'services/cart/does-not-exist.js'",
        '    at services/cart/test/a.test.mjs:3:9',
        "EISDIR: illegal operation on a directory, open 'logs/community-drafts.jsonl'",
        'cwd .',
      ].join('\n'),
    );
  });

  it('leaves other paths, and names that merely start like a root, as printed', () => {
    const text = 'see /srv/orchestrator/workspace2/x.js and /home/ci/build/app.js';
    expect(displayText(text, roots)).toBe(text);
  });

  it('names the logs folder first when it lies inside the workspace', () => {
    expect(displayText('wrote /w/logs/a.jsonl and /w/src/a.ts', { workspaceRoot: '/w', logsDir: '/w/logs' })).toBe('wrote logs/a.jsonl and src/a.ts');
  });

  it('never rewrites a filesystem root', () => {
    expect(displayText('/etc/passwd', { workspaceRoot: '/' })).toBe('/etc/passwd');
  });
});
