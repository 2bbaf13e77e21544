#!/usr/bin/env node
// Folder-level import rules of src/ (docs/architecture.md, "Layers"), measured from the sources
// without a build: every relative import, export-from and dynamic import of a .ts file is an edge
// from its folder to the folder it names. Prints the folder edges that run from a lower layer up,
// the imports the worker SDK makes into the service and any cycle between folders; --check exits 1
// when one is found that docs/architecture.md does not name as an exception (ALLOWED below).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Lowest layer first; a folder may import its own layer and the ones below. `(root)` is the
 * neutral files directly under src/ (clock, logging, bounded body reads); the composition roots
 * (app.ts, main.ts, orch.ts and orch-bin.ts, the orch program) are their own top layer. bridge/ is the chat program beside src/.
 */
export const LAYERS = [
  ['(root)', 'domain', 'common'],
  ['config', 'redaction', 'net', 'tracing', 'task-types'],
  ['type modules', 'store', 'coordination', 'workspace'],
  ['worker-sdk'],
  ['agents', 'models', 'runlogs'],
  ['runtime'],
  ['workers', 'lanes', 'operator-types', 'flows', 'tokens', 'knowledge', 'business', 'incidents', 'alerts', 'proof', 'events', 'persistence', 'schedules', 'scheduler', 'aggregates', 'metrics', 'migrate'],
  ['http', 'client', 'cli', 'demo', 'relay'],
  ['bridge'],
  ['(composition)'],
];

/**
 * The built-in task types' modules: data (catalog facts, schemas, result view) that imports only
 * TypeBox and the schema kit, so the runtime, the worker SDK and tools read them without loading
 * any lane's code. The rest of src/lanes/ (handlers, hooks) is the `lanes` folder.
 */
export const TYPE_MODULE = /^src\/lanes\/(?:[^/]+\/definition|built-in|payload-schemas|payload-check)\.ts$/;

/** What the worker SDK (loaded by worker processes) may import: the shared kernel and the type modules. */
export const WORKER_SDK_MAY_IMPORT = ['domain', 'common', 'task-types', 'type modules'];

/** The upward edges docs/architecture.md names with their reason ("Layers"). */
export const ALLOWED = new Set([]);

export const COMPOSITION = new Set(['app.ts', 'main.ts', 'orch.ts', 'orch-bin.ts']);

function folderOf(file) {
  const path = relative(repo, file).split(sep).join('/');
  if (TYPE_MODULE.test(path.replace(/\.js$/, '.ts'))) return 'type modules';
  const parts = path.split('/');
  if (parts[0] === 'bridge') return 'bridge';
  if (parts[0] !== 'src') return null;
  if (parts[1] === 'metrics.ts' || parts[1] === 'metrics.js') return 'metrics';
  if (parts.length === 2) return COMPOSITION.has(parts[1].replace(/\.js$/, '.ts')) ? '(composition)' : '(root)';
  return parts[1];
}

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

const IMPORT = /(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

export function folderEdges() {
  const edges = new Map();
  for (const file of [...sources(join(repo, 'src')), ...sources(join(repo, 'bridge'))]) {
    const from = folderOf(file);
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const spec = m[1] ?? m[2];
      if (!spec.startsWith('.')) continue;
      const target = normalize(join(dirname(file), spec));
      // An import-like line inside a template (the demo's sample project) names no file of ours.
      if (!existsSync(target.replace(/\.js$/, '.ts')) && !existsSync(target)) continue;
      const to = folderOf(target);
      if (to === null || to === from) continue;
      const key = `${from} -> ${to}`;
      if (!edges.has(key)) edges.set(key, []);
      edges.get(key).push(`${relative(repo, file)} imports ${spec}`);
    }
  }
  return edges;
}

const rank = new Map(LAYERS.flatMap((names, i) => names.map((n) => [n, i])));

export function problems(edges) {
  const found = [];
  for (const [key, files] of edges) {
    const [from, to] = key.split(' -> ');
    if (!rank.has(from) || !rank.has(to)) found.push({ key, why: 'folder missing from LAYERS', files });
    else if (rank.get(to) > rank.get(from)) found.push({ key, why: 'upward', files });
    else if (from === 'worker-sdk' && !WORKER_SDK_MAY_IMPORT.includes(to)) found.push({ key, why: 'the worker SDK imports the service', files });
  }
  // Cycles between folders of one layer: a depth-first search over the folder graph.
  const next = new Map();
  for (const key of edges.keys()) {
    const [from, to] = key.split(' -> ');
    if (!next.has(from)) next.set(from, []);
    next.get(from).push(to);
  }
  // Only paths inside the edge's own layer: an upward edge is reported as such, not as a cycle.
  const reaches = (a, b, layer, seen = new Set()) =>
    (next.get(a) ?? []).some((n) => rank.get(n) === layer && (n === b || (!seen.has(n) && (seen.add(n), reaches(n, b, layer, seen)))));
  for (const [key, files] of edges) {
    const [from, to] = key.split(' -> ');
    if (rank.get(from) === rank.get(to) && reaches(to, from, rank.get(from))) found.push({ key, why: 'cycle between folders', files });
  }
  return found;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const found = problems(folderEdges());
  const verbose = process.argv.includes('--files');
  for (const p of found) {
    const allowed = ALLOWED.has(p.key) ? ' (named exception)' : '';
    console.log(`${p.key}: ${p.why}, ${p.files.length} import(s)${allowed}`);
    if (verbose) for (const f of p.files) console.log(`  ${f}`);
  }
  const unnamed = found.filter((p) => !ALLOWED.has(p.key));
  console.log(`${found.length} folder import(s) against the layers, ${unnamed.length} not named in docs/architecture.md`);
  if (process.argv.includes('--check') && unnamed.length > 0) process.exitCode = 1;
}
