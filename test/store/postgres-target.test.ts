import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/store/open.js';
import { parsePostgresUrl } from '../../src/store/postgres/connection.js';
import { testConfig } from '../support/config.js';

describe('PostgreSQL state target selection', () => {
  const url = 'postgres://svc:pw@db.internal:5432/orchestrator';

  it('DATABASE_URL=postgres://… selects the PostgreSQL store when STATE_FILE names no other target', () => {
    const config = testConfig({ DATABASE_URL: url });
    expect(config.stateTarget).toBe('postgres');
    const store = openStateStore(config.stateTarget, { databaseUrl: config.databaseUrl });
    expect(store.kind).toBe('postgres');
    expect(store.exclusive).toBe(false);
    expect(store.target).toBe('postgres:db.internal:5432/orchestrator');
  });

  it('an explicit STATE_FILE wins over DATABASE_URL, and docdb:<key> uses the PostgreSQL store under that key', () => {
    expect(testConfig({ DATABASE_URL: url, STATE_FILE: 'sql:./state.sqlite' }).stateTarget).toMatch(/^sql:\/.*state\.sqlite$/);
    const docdb = testConfig({ DATABASE_URL: url, STATE_FILE: 'docdb:tenant-a' });
    const store = openStateStore(docdb.stateTarget, { databaseUrl: docdb.databaseUrl });
    expect(store).toMatchObject({ kind: 'postgres', target: 'docdb:tenant-a', stateKey: 'tenant-a' });
    expect(testConfig({ DATABASE_URL: 'mongodb://x/y' }).stateTarget).toMatch(/orchestrator-state\.json$/);
  });

  it('refuses docdb:<key> or postgres without a postgres:// DATABASE_URL', () => {
    expect(() => openStateStore('docdb:k', {})).toThrow(/needs DATABASE_URL=postgres/);
    expect(() => openStateStore('postgres', { databaseUrl: 'mysql://x' })).toThrow(/needs DATABASE_URL=postgres/);
    expect(() => openStateStore('docdb:', { databaseUrl: url })).toThrow(/needs a key/);
  });

  it('takes the schema from the URL, never passing it or a password on to display', () => {
    const target = parsePostgresUrl('postgresql://u:secret@127.0.0.1/test?schema=tenant_a&sslmode=disable');
    expect(target.schema).toBe('tenant_a');
    expect(target.connectionString).not.toContain('schema=');
    expect(target.connectionString).toContain('sslmode=disable');
    expect(target.display).toBe('127.0.0.1/test?schema=tenant_a');
    expect(() => parsePostgresUrl('postgres://h/db?schema=Robert%27);DROP')).toThrow(/plain lower-case identifier/);
  });
});
