/**
 * 4. Read latency of the runs list and a run detail at 10,000 stored runs (quick: fewer),
 * cached (the same GET repeated, answered with `X-Svc-Cache: hit`) and uncached (offset/limit
 * or run id varied so each request is a miss). Runs are seeded over HTTP (doc-sync triggers,
 * 50 connections) and drained before reading. The ceiling is a bare Fastify server returning the
 * very bytes the service returned, from memory (a perfect cache).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { requestJson } from '../lib/http.js';
import { checkAnswers } from '../lib/answers.js';
import { runLoad, type LoadSummary } from '../lib/load.js';
import { seedRuns } from '../lib/seed.js';
import type { Scenario, ScenarioContext } from '../lib/scenario.js';
import {
  launchService,
  makeBaseDir,
  runsTotal,
  serviceAvailable,
  SKIP_SERVICE_REASON,
  storeLabel,
  VIEWER_KEY,
  waitDrained,
} from '../lib/service.js';
import { errorMessage } from '../lib/util.js';
import { startBareFastify, type BareFastify } from '../peers/launch-bare-fastify.js';

const CEILING = 'bare fastify (same bytes)';
const LIST_PATH = '/api/tasks/runs?limit=50';
/** Alternated rounds (ceiling, service) of the cached list, the pair its goal is judged on. */
const LIST_ROUNDS = 3;

interface ReadCase {
  name: string;
  ceilingFixture: 'list' | 'detail';
  load: (url: string) => Promise<LoadSummary>;
}

function cacheNote(summary: LoadSummary): string {
  const c = summary.cache;
  const parts: string[] = [];
  if (c) {
    const total = c.hit + c.miss + c.none;
    if (total > 0) parts.push(`X-Svc-Cache hit ${Math.round((c.hit / total) * 100)}% of ${total}`);
  }
  if (summary.non2xx) parts.push(`${summary.non2xx} non-2xx`);
  if (summary.stoppedEarly) parts.push('stopped at time budget');
  return parts.join('; ');
}

/** The answers of several loads together, for one check over all of them. */
function answersOf(loads: LoadSummary[]): Pick<LoadSummary, 'non2xx' | 'errors' | 'statusCodes' | 'completed'> {
  const statusCodes: Record<string, number> = {};
  for (const l of loads) for (const [code, n] of Object.entries(l.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  const sum = (pick: (l: LoadSummary) => number) => loads.reduce((n, l) => n + pick(l), 0);
  return { statusCodes, non2xx: sum((l) => l.non2xx), errors: sum((l) => l.errors), completed: sum((l) => l.completed) };
}

/** The cached runs list and the same bytes from memory in turns (A,B,A,B,A,B), every answer checked. */
async function alternateCachedList(ctx: ScenarioContext, subject: string, store: string, urls: { service: string; bare: string }, list: ReadCase, per: number, maxMs: number): Promise<void> {
  const s = ctx.settings.reads;
  const rounds: { value: number; baseline: number }[] = [];
  const loads: { ceiling: LoadSummary; service: LoadSummary }[] = [];
  for (let round = 0; round < LIST_ROUNDS; round++) {
    ctx.log(`${subject}: cached list round ${round + 1}/${LIST_ROUNDS}`);
    const ceiling = await runLoad({ title: `ceiling list round ${round + 1}`, url: urls.bare, connections: s.connections, durationSec: per, maxMs, path: '/fixture/list' });
    const service = await list.load(urls.service);
    loads.push({ ceiling, service });
    rounds.push({ value: service.okRps, baseline: ceiling.okRps });
  }
  ctx.details[`${subject} cached list rounds`] = loads;
  checkAnswers(ctx.rows, CEILING, 'list rounds', answersOf(loads.map((l) => l.ceiling)));
  checkAnswers(ctx.rows, subject, 'list cached rounds', answersOf(loads.map((l) => l.service)));
  ctx.rows.compare({ id: `reads/${store === 'sql' ? 'sqlite' : store}/cached list`, subject, baseline: CEILING, metric: 'list cached req/s', unit: '', better: 'higher', rounds });
}

export const reads: Scenario = {
  name: 'reads',
  title: 'Cached and uncached read latency (runs list, run detail)',
  async run(ctx) {
    const { rows, details } = ctx;
    const s = ctx.settings.reads;
    const viewer = { authorization: `Bearer ${VIEWER_KEY}` };
    if (!serviceAvailable()) {
      for (const store of s.stores) rows.skip(storeLabel(store), 'list/detail p50, p99', SKIP_SERVICE_REASON);
      return;
    }
    const fixtures = makeBaseDir('orch-bench-fixtures-');
    let bare: BareFastify | null = null;
    const ceiling: Record<string, LoadSummary> = {};
    try {
      for (const [index, store] of s.stores.entries()) {
        const subject = storeLabel(store);
        const storesLeft = s.stores.length - index;
        const share = Math.floor(ctx.remainingMs() / storesLeft);
        if (share < 10_000) {
          rows.skip(subject, 'list/detail p50, p99', 'time budget spent');
          continue;
        }
        const storeDeadline = Date.now() + share;
        const left = () => storeDeadline - Date.now();
        // Kept for the reads themselves (four cases, two ceilings, then LIST_ROUNDS alternated
        // rounds of the cached list and its ceiling) once seeding and draining are done.
        const reserveMs = ((6 + 2 * LIST_ROUNDS) * s.durationSec + 4) * 1000;
        const seedDeadline = storeDeadline - reserveMs;
        const seedLeft = () => Math.max(2000, seedDeadline - Date.now());
        try {
          const service = await launchService({
            store,
            config: { concurrency: s.serviceConcurrency, runRetention: Math.max(10_000, s.runs * 2) },
          });
          try {
            const tag = `read-${process.pid}-${Date.now().toString(36)}`;
            ctx.log(`${subject}: seeding ${s.runs} runs`);
            const { summary: seed, runIds } = await seedRuns(service.url, tag, s.runs, Math.floor(seedLeft() * 0.5));
            if (runIds.length < 2) throw new Error(`seeding admitted too few runs: ${JSON.stringify(seed.statusCodes)}`);
            const drained = await waitDrained(service.url, seedLeft());
            const stored = await runsTotal(service.url, {});
            details[`${subject} seed`] = { seed, drainedAfterMs: drained, stored };
            rows.add({
              subject,
              metric: 'stored runs',
              unit: '',
              value: stored,
              note: `${seed.ok2xx} admitted at ${Math.round(seed.okRps)} req/s${drained === null ? '; not drained in time' : ''}`,
            });

            // Fixtures for the ceiling: the service's own bytes.
            const detailId = runIds[0]!;
            if (!bare) {
              const dir = join(fixtures.dir, 'fx');
              mkdirSync(dir, { recursive: true });
              const list = await fetch(`${service.url}${LIST_PATH}`, { headers: viewer });
              writeFileSync(join(dir, 'list.json'), Buffer.from(await list.arrayBuffer()));
              const detail = await fetch(`${service.url}/api/tasks/runs/${encodeURIComponent(detailId)}`, { headers: viewer });
              writeFileSync(join(dir, 'detail.json'), Buffer.from(await detail.arrayBuffer()));
              bare = await startBareFastify({ fixtureDir: dir });
            }

            const per = Math.max(0.5, Math.min(s.durationSec, (left() - 3000) / 1000 / (6 + 2 * LIST_ROUNDS)));
            const maxMs = Math.floor(per * 1000 + 5000);
            const admitted = runIds.length;
            let listCounter = 0;
            let detailCounter = 0;
            const cases: ReadCase[] = [
              {
                name: 'list cached',
                ceilingFixture: 'list',
                load: (url) =>
                  runLoad({ title: 'list cached', url, connections: s.connections, durationSec: per, maxMs, path: LIST_PATH, headers: viewer, countCache: true }),
              },
              {
                name: 'list uncached',
                ceilingFixture: 'list',
                load: (url) =>
                  runLoad({
                    title: 'list uncached',
                    url,
                    connections: s.connections,
                    durationSec: per,
                    maxMs,
                    path: LIST_PATH,
                    headers: viewer,
                    countCache: true,
                    // offset walks the whole store; limit shifts each lap so no URL repeats.
                    setup: () => {
                      const i = listCounter++;
                      const offset = i % admitted;
                      const limit = 50 + (Math.floor(i / admitted) % 150);
                      return { path: `/api/tasks/runs?limit=${limit}&offset=${offset}` };
                    },
                  }),
              },
              {
                name: 'detail cached',
                ceilingFixture: 'detail',
                load: (url) =>
                  runLoad({
                    title: 'detail cached',
                    url,
                    connections: s.connections,
                    durationSec: per,
                    maxMs,
                    path: `/api/tasks/runs/${encodeURIComponent(detailId)}`,
                    headers: viewer,
                    countCache: true,
                  }),
              },
              {
                name: 'detail uncached',
                ceilingFixture: 'detail',
                load: (url) =>
                  runLoad({
                    title: 'detail uncached',
                    url,
                    connections: s.connections,
                    // Each seeded run at most once, so every request is a miss.
                    amount: Math.min(admitted - 1, s.detailAmount),
                    maxMs,
                    path: `/api/tasks/runs/${encodeURIComponent(detailId)}`,
                    headers: viewer,
                    countCache: true,
                    // Skips runIds[0], the id the cached case warmed.
                    setup: () => ({ path: `/api/tasks/runs/${encodeURIComponent(runIds[(detailCounter++ % (admitted - 1)) + 1]!)}` }),
                  }),
              },
            ];

            // Warm the cached entries once.
            await requestJson(`${service.url}${LIST_PATH}`, { key: VIEWER_KEY });
            await requestJson(`${service.url}/api/tasks/runs/${encodeURIComponent(detailId)}`, { key: VIEWER_KEY });

            for (const c of cases) {
              if (!ceiling[c.ceilingFixture] && bare) {
                ceiling[c.ceilingFixture] = await runLoad({
                  title: `ceiling ${c.ceilingFixture}`,
                  url: bare.url,
                  connections: s.connections,
                  durationSec: per,
                  maxMs,
                  path: `/fixture/${c.ceilingFixture}`,
                });
                details[`${CEILING} ${c.ceilingFixture}`] = ceiling[c.ceilingFixture];
                const cs = ceiling[c.ceilingFixture]!;
                rows.add({ subject: CEILING, metric: `${c.ceilingFixture} req/s`, unit: '', value: cs.okRps, better: 'higher', note: `${s.connections} connections` });
                rows.add({ subject: CEILING, metric: `${c.ceilingFixture} p50`, unit: 'ms', value: cs.latencyMs.p50, better: 'lower' });
                rows.add({ subject: CEILING, metric: `${c.ceilingFixture} p99`, unit: 'ms', value: cs.latencyMs.p99, better: 'lower' });
                checkAnswers(rows, CEILING, c.ceilingFixture, cs);
              }
              ctx.log(`${subject}: ${c.name}`);
              const summary = await c.load(service.url);
              details[`${subject} ${c.name}`] = summary;
              const base = ceiling[c.ceilingFixture];
              rows.add({
                subject,
                metric: `${c.name} req/s`,
                unit: '',
                value: summary.okRps,
                better: 'higher',
                baseline: { subject: CEILING, value: base ? base.okRps : null },
                note: cacheNote(summary),
              });
              rows.add({
                subject,
                metric: `${c.name} p50`,
                unit: 'ms',
                value: summary.latencyMs.p50,
                better: 'lower',
                baseline: { subject: CEILING, value: base ? base.latencyMs.p50 : null },
              });
              rows.add({
                subject,
                metric: `${c.name} p99`,
                unit: 'ms',
                value: summary.latencyMs.p99,
                better: 'lower',
                baseline: { subject: CEILING, value: base ? base.latencyMs.p99 : null },
              });
              checkAnswers(rows, subject, c.name, summary);
            }
            if (bare) await alternateCachedList(ctx, subject, store, { service: service.url, bare: (bare as BareFastify).url }, cases[0]!, per, maxMs);
          } finally {
            await service.stop();
          }
        } catch (err) {
          rows.add({ subject, metric: 'list/detail p50, p99', unit: '', value: null, note: `error: ${errorMessage(err)}` });
          details[`${subject} error`] = String(err);
        }
      }
    } finally {
      if (bare) await (bare as BareFastify).stop();
      await fixtures.remove();
    }
  },
};
