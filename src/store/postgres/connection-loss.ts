import { DomainError } from '../../domain/errors.js';

/**
 * SQLSTATE classes and codes that mean the database is away rather than that a statement is
 * wrong: connection exceptions (class 08), the server shutting down or starting up (57P01-57P03),
 * too many connections (53300), and a serialization of the server's own restart.
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300', '53400']);
const UNAVAILABLE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);
/** What the `pg` driver says when a socket ends or a pool cannot hand out a connection in time. */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Connection ended unexpectedly',
];

/** True when `err` says the database cannot be reached now (a retry later may succeed). */
export function isConnectionLoss(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (code.startsWith('08') || UNAVAILABLE_STATES.has(code) || UNAVAILABLE_SOCKET_CODES.has(code)) return true;
  }
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.includes(m));
}

/**
 * The store's error for a database that is away: code `unavailable` (503), naming the database by
 * its display target only, never its credentials. Any other error passes through unchanged.
 */
export function asUnavailable(err: unknown, display: string): unknown {
  if (err instanceof DomainError || !isConnectionLoss(err)) return err;
  const reason = (err as Error).message;
  return new DomainError('unavailable', `state database ${display} is unreachable: ${reason}`, undefined, { cause: err });
}
