import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TASK_CATALOG } from '../../src/runtime/catalog.js';
import { REPO_ROOT } from '../support/paths.js';

const DOC = readFileSync(join(REPO_ROOT, 'docs', 'tasks.md'), 'utf8');

/** Rows of the catalog table in docs/tasks.md, by task type. */
function documentedRows(): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of DOC.split('\n')) {
    const match = /^\| `([a-z-]+)` \|/.exec(line);
    if (!match?.[1]) continue;
    rows.set(match[1], line.split(' | ').map((c) => c.replace(/^\| |`| \|$/g, '').trim()));
  }
  return rows;
}

describe('docs/tasks.md', () => {
  it('documents every catalog entry with its executor, agent, approval default and status', () => {
    const rows = documentedRows();
    expect([...rows.keys()].sort()).toEqual(TASK_CATALOG.map((e) => e.type).sort());
    for (const entry of TASK_CATALOG) {
      const [, access, executor, agent, approval, , status] = rows.get(entry.type)!;
      expect(access, entry.type).toBe(entry.internalOnly ? 'internal' : 'public');
      expect(executor, entry.type).toBe(entry.executor);
      expect(agent, entry.type).toBe(entry.agentId ?? '—');
      expect(approval, entry.type).toBe(entry.internalOnly ? '—' : entry.approvalGated ? 'by default' : 'on request');
      expect(status, entry.type).toBe(entry.operationalStatus);
    }
  });
});
