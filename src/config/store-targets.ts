/**
 * State target names shared by configuration and the driver picker (no driver code here, so
 * the config loader can use them without loading a database client).
 */

/** The state target of the shared PostgreSQL store: DATABASE_URL set, STATE_FILE naming nothing else. */
export const POSTGRES_TARGET = 'postgres';

export function isPostgresUrl(url: string | null | undefined): url is string {
  return typeof url === 'string' && /^postgres(ql)?:\/\//i.test(url);
}

/**
 * A target every instance of a fleet shares (PostgreSQL, with or without a `docdb:` key): only
 * there may an instance leave the running to others (`concurrency` 0).
 */
export function isSharedTarget(target: string): boolean {
  return target === POSTGRES_TARGET || target.startsWith('docdb:');
}
