import { basename } from 'node:path';

/**
 * A state target as health, summaries, facts and exports show it: never the server's absolute
 * path (a state file by its name, `sql:<file name>`), never a credential (a database URL without
 * its user and password). The full target stays in the log, where an operator needs it.
 */
export function shownTarget(target: string): string {
  if (target.startsWith('sql:')) return `sql:${basename(target.slice('sql:'.length))}`;
  if (/^\w+:\/\//.test(target)) return target.replace(/(\w+:\/\/)[^/@\s]*@/, '$1[redacted]@');
  // PostgreSQL targets are already shown as `postgres:<host>/<db>` or `docdb:<key>`, without credentials.
  if (target.startsWith('docdb:') || target.startsWith('postgres:')) return target;
  return basename(target);
}
