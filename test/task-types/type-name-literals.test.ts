import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVICE_RUN_ID_PREFIXES } from '../../src/domain/service-run-ids.js';
import { BUILT_IN_REGISTRY } from '../../src/lanes/built-in.js';
import { builtInScheduleIds } from '../../src/schedules/built-in.js';
import type { TaskRole } from '../../src/task-types/task-type.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');

/**
 * Words of the code that happen to be spelled as a built-in type's name but do not name the
 * type: each with the file and the reason. Anything else naming a type outside its own folder
 * is a table keyed by a type's name, which issue 48 took away.
 */
const NOT_TYPE_USES: ReadonlyArray<{ file: string; name: string; reason: string }> = [
  { file: 'src/agents/capability.ts', name: 'incident-triage', reason: 'a capability of the system monitor agent, not the lane' },
  { file: 'src/agents/overview.ts', name: 'heartbeat', reason: "an agent's service heartbeat file as evidence kind" },
  { file: 'src/app.ts', name: 'startup', reason: "the run source `startup` (RunRecord['source'])" },
  { file: 'src/domain/run-record.ts', name: 'startup', reason: 'the run source vocabulary' },
  { file: 'src/knowledge/repair-admission.ts', name: 'doc-change', reason: 'who requested a repair: the doc watcher’s change signal' },
  { file: 'src/knowledge/repair-reporting.ts', name: 'drift-repair', reason: 'a milestone kind (src/proof/milestones.ts)' },
  { file: 'src/proof/milestones.ts', name: 'startup', reason: 'a milestone kind' },
  { file: 'src/proof/milestones.ts', name: 'drift-repair', reason: 'a milestone kind' },
  { file: 'src/proof/proof-feed.ts', name: 'drift-repair', reason: "a milestone kind's public sentences" },
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The code of a line, without a comment: a comment may speak of a type, as docs do. */
function codeOf(line: string): string {
  const trimmed = line.trim();
  if (trimmed.startsWith('*') || trimmed.startsWith('//') || trimmed.startsWith('/*')) return '';
  return line.replace(/\s\/\/\s.*$/, '');
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('a built-in type is named only in its own folder', () => {
  it('src/ outside src/lanes/<type>/ holds no string literal of the type name, but the allowed non-type uses', () => {
    const names = BUILT_IN_REGISTRY.all().map((t) => t.type);
    const hits: string[] = [];
    const used = new Set<string>();
    for (const path of sourceFiles(SRC)) {
      const file = relative(ROOT, path).split('\\').join('/');
      const lines = readFileSync(path, 'utf8').split('\n');
      for (const name of names) {
        if (file.startsWith(`src/lanes/${name}/`)) continue;
        const literal = new RegExp(`(['"\`])${escape(name)}\\1`);
        lines.forEach((line, i) => {
          if (!literal.test(codeOf(line))) return;
          const allowed = NOT_TYPE_USES.find((a) => a.file === file && a.name === name);
          if (allowed) used.add(`${file} ${name}`);
          else hits.push(`${file}:${i + 1} names '${name}': ${line.trim()}`);
        });
      }
    }
    expect(hits).toEqual([]);
    // An allowance nothing needs any more goes too.
    expect(NOT_TYPE_USES.map((a) => `${a.file} ${a.name}`).filter((key) => !used.has(key))).toEqual([]);
  });

  it('the facts once named by type come from the modules: roles, built-in schedules', () => {
    const roles: TaskRole[] = ['verifies-incidents', 'indexes-docs', 'drafts-community-replies'];
    for (const role of roles) expect(BUILT_IN_REGISTRY.withRole(role), role).toBeDefined();
    const scheduled = BUILT_IN_REGISTRY.scheduled().map((t) => t.type);
    expect(scheduled.length).toBeGreaterThan(0);
    expect(builtInScheduleIds().slice(0, scheduled.length)).toEqual(scheduled);
    // Each slot's run id prefix is one of the service's own, which no client key may take.
    for (const type of scheduled) expect(Object.values(SERVICE_RUN_ID_PREFIXES)).toContain(`${type}:`);
  });
});
