/**
 * Error codes that mean the network (or name resolution) could not be reached at all, as
 * opposed to one server answering badly. A host without outbound access typically fails name
 * resolution with ENOTFOUND or EAI_AGAIN before any connection is tried.
 */
const UNREACHABLE_CODES = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ETIMEDOUT',
  'ECONNRESET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/** The system or client error code of an error, looking through fetch's `cause` chain. */
export function errorCode(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const record = current as { code?: unknown; name?: unknown; cause?: unknown };
    if (typeof record.code === 'string' && record.code !== '') return record.code;
    if (record.name === 'TimeoutError') return 'TIMEOUT';
    current = record.cause;
  }
  return null;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The reason a failed source carries. Every network failure says the lane depends on outside
 * systems; an unreachable network is named as such, with the code that showed it.
 */
export function failureReason(error: unknown): { reason: string; unreachable: boolean } {
  const code = errorCode(error);
  if (code === 'TIMEOUT') return { reason: 'externally dependent: request timed out', unreachable: true };
  if (code !== null && UNREACHABLE_CODES.has(code)) {
    return { reason: `externally dependent: network unreachable (${code})`, unreachable: true };
  }
  return { reason: `externally dependent: request failed (${code ?? messageOf(error)})`, unreachable: false };
}
