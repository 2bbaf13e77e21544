import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { invalidRequest } from '../domain/errors.js';
import { openStateStore } from '../store/open.js';
import { parsePostgresUrl } from '../store/postgres/connection.js';
import { POSTGRES_TARGET, isPostgresUrl } from '../config/store-targets.js';
import type { StateStore } from '../store/types.js';
import { migrateStore, type MigrationEvidence } from './migrate-store.js';

export const MIGRATE_USAGE =
  'usage: npm run migrate -- --from <target> --to <target> [--force] [--evidence <file>]\n' +
  '  <target>: a JSON state file path, sql:<path>, postgres://… (or `postgres` / docdb:<key> with DATABASE_URL)';

interface OpenedTarget {
  store: StateStore;
  /** What evidence and output show: never a password. */
  display: string;
}

/** Opens a migration end from its command-line form (paths relative to the working directory). */
export function openMigrationTarget(spec: string, env: NodeJS.ProcessEnv, cwd: string): OpenedTarget {
  const url: string | null = spec;
  if (isPostgresUrl(url)) {
    return { store: openStateStore(POSTGRES_TARGET, { databaseUrl: url }), display: `postgres:${parsePostgresUrl(url).display}` };
  }
  if (spec === POSTGRES_TARGET || spec.startsWith('docdb:')) {
    const store = openStateStore(spec, { databaseUrl: env.DATABASE_URL ?? null });
    return { store, display: store.target };
  }
  if (spec.startsWith('sql:')) {
    const store = openStateStore(`sql:${resolve(cwd, spec.slice(4))}`);
    return { store, display: store.target };
  }
  const store = openStateStore(resolve(cwd, spec));
  return { store, display: store.target };
}

function printEvidence(evidence: MigrationEvidence, path: string, out: (line: string) => void): void {
  out(`migration ${evidence.from} -> ${evidence.to}: ${evidence.status}${evidence.resumed ? ' (resumed)' : ''}`);
  for (const [name, c] of Object.entries(evidence.collections)) {
    out(`  ${name.padEnd(28)} ${String(c.source.count).padStart(7)} -> ${String(c.target?.count ?? 0).padStart(7)}  sha256 ${c.source.sha256.slice(0, 16)}  written ${c.written}`);
  }
  for (const mismatch of evidence.mismatches) out(`  MISMATCH ${mismatch}`);
  out(`evidence: ${path}`);
}

/**
 * `migrate --from <target> --to <target>`: copies the state, verifies counts and hashes per
 * collection, writes the evidence file. Switching the service to the new target stays an
 * explicit operator step (STATE_FILE / DATABASE_URL). Returns the exit code.
 */
export async function runMigrateCommand(
  argv: string[],
  env: NodeJS.ProcessEnv,
  io: { cwd: string; out: (line: string) => void; err: (line: string) => void; now?: () => Date },
): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { from: { type: 'string' }, to: { type: 'string' }, force: { type: 'boolean', default: false }, evidence: { type: 'string' } },
      strict: true,
    }));
  } catch (err) {
    io.err(`${(err as Error).message}\n${MIGRATE_USAGE}`);
    return 2;
  }
  if (!values.from || !values.to) {
    io.err(MIGRATE_USAGE);
    return 2;
  }
  const now = io.now ?? (() => new Date());
  let source: OpenedTarget | null = null;
  let target: OpenedTarget | null = null;
  try {
    source = openMigrationTarget(values.from, env, io.cwd);
    target = openMigrationTarget(values.to, env, io.cwd);
    if (source.display === target.display) throw invalidRequest('source and target are the same store');
    await source.store.open();
    await target.store.open();
    const evidence = await migrateStore(source.store, target.store, { from: source.display, to: target.display, force: values.force ?? false, now });
    const path = resolve(io.cwd, values.evidence ?? `migration-evidence-${evidence.startedAt.replace(/[:.]/g, '-')}.json`);
    writeFileSync(path, `${JSON.stringify(evidence, null, 2)}\n`);
    printEvidence(evidence, path, io.out);
    return evidence.status === 'verified' ? 0 : 1;
  } catch (err) {
    io.err(`migrate: ${(err as Error).message}`);
    return 1;
  } finally {
    await source?.store.close().catch(() => undefined);
    await target?.store.close().catch(() => undefined);
  }
}
