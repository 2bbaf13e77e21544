import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { indexRefresh } from '../../src/knowledge/index-refresh.js';
import { knowledgeQuery } from '../../src/knowledge/knowledge-query.js';
import { knowledgeSummary } from '../../src/knowledge/knowledge-summary.js';
import { loadedIndex } from '../../src/knowledge/loaded-index.js';
import { repairPosturePort } from '../../src/knowledge/repair-posture-port.js';
import type { RepairPosture } from '../../src/knowledge/repair-posture.js';
import { secretScrub } from '../../src/knowledge/secret-scrub.js';
import { fixedClock } from '../support/clocks.js';
import { knowledgeFixture } from '../support/knowledge-workspace.js';

/** The knowledge service's roles built one by one over one held index, as the service facade builds them. */
function roles() {
  const fx = knowledgeFixture();
  const clock = fixedClock('2024-05-01T12:00:00.000Z');
  const config = { docsPath: fx.docsPath, workspaceRoot: fx.workspaceRoot, logsDir: fx.logsDir };
  const loaded = loadedIndex({ logsDir: fx.logsDir, clock });
  const posture = repairPosturePort();
  const scrub = secretScrub(['the-admin-key-value']);
  const refresh = indexRefresh({ config, clock, logger: pino({ level: 'silent' }), invalidator: { invalidate: async () => undefined }, loaded });
  const query = knowledgeQuery({ config, clock, loaded, posture, scrub });
  const { summary, knowledgeStats } = knowledgeSummary({ config, clock, loaded, posture, scrub });
  return { fx, loaded, posture, refresh, query, summary, knowledgeStats };
}

describe('knowledge service roles', () => {
  it('share one held index: what the refresh builds is what the query and the summary read', async () => {
    const { fx, loaded, refresh, query, knowledgeStats } = roles();
    expect((await loaded.current()).docs).toEqual([]);
    expect((await query({ query: 'rotate keys' })).total).toBe(0);

    const { index } = await refresh();
    expect(await loaded.current()).toBe(index);
    expect((await query({ query: 'rotate keys' })).results[0]).toMatchObject({ path: 'runbooks/rotate-keys.md' });
    expect(await knowledgeStats()).toMatchObject({ indexedEntries: 5, generation: index.generation });

    // A new generation rebuilds the query's search engine: the new doc is found.
    fx.write('runbooks/zeppelin.md', '# Zeppelin mooring\n\nHow to moor the zeppelin at the tower.\n');
    const next = await refresh();
    expect(next.index.generation).toBe(index.generation + 1);
    expect((await query({ query: 'zeppelin mooring' })).results.map((r) => r.path)).toEqual(['runbooks/zeppelin.md']);
  });

  it('report no repair posture until the repair loop attaches its reader', async () => {
    const { posture, refresh, query, summary } = roles();
    await refresh();
    expect((await summary()).runtime.repairLoop).toBeNull();

    const idle: RepairPosture = { status: 'idle', threshold: 25, pendingPaths: 0, activeRepairs: 0, lastRepair: null, cooldownUntil: null };
    posture.attach(async () => idle);
    expect((await summary()).runtime.repairLoop).toEqual(idle);
    expect((await query({ query: 'rotate keys' })).meta.repairLoop).toEqual(idle);
  });

  it('scrub configured secrets of four characters or more from a body, and leave a body alone without any', () => {
    const body = { title: 'the-admin-key-value', nested: ['key abc and the-admin-key-value'] };
    expect(secretScrub(['the-admin-key-value', 'abc'])(body)).toEqual({ title: '[redacted]', nested: ['key abc and [redacted]'] });
    expect(secretScrub(['abc'])(body)).toBe(body);
    expect(secretScrub()(body)).toBe(body);
  });
});
