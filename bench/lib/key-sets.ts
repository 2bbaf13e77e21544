/**
 * The admission check: the keys a system stored against the keys it acknowledged, as sets.
 * Counts alone hide a lost key behind an extra one; sets do not.
 */
export interface KeyComparison {
  ok: boolean;
  acknowledged: number;
  stored: number;
  /** Acknowledged and not stored: a loss, whatever else happened. */
  missing: string[];
  /** Stored without an acknowledgement seen: allowed up to the requests unanswered at a load's stop. */
  unacknowledged: number;
  detail: string;
}

export function compareKeys(acknowledged: ReadonlySet<string>, stored: ReadonlySet<string>, unansweredAllowed: number): KeyComparison {
  const missing = [...acknowledged].filter((key) => !stored.has(key));
  let unacknowledged = 0;
  for (const key of stored) if (!acknowledged.has(key)) unacknowledged++;
  const ok = missing.length === 0 && unacknowledged <= unansweredAllowed;
  const parts = [`${acknowledged.size} acknowledged, ${stored.size} stored`];
  if (missing.length) parts.push(`${missing.length} acknowledged keys not stored (e.g. ${missing.slice(0, 3).join(', ')})`);
  if (unacknowledged) parts.push(`${unacknowledged} stored without a seen answer (at most ${unansweredAllowed} in flight at a stop)`);
  return { ok, acknowledged: acknowledged.size, stored: stored.size, missing, unacknowledged, detail: parts.join('; ') };
}

/** The run id (= idempotency key) of a 202 answer body; null when the body is not one. */
export function acknowledgedKey(status: number, body: string): string | null {
  if (status !== 202) return null;
  try {
    const parsed = JSON.parse(body) as { runId?: unknown };
    return typeof parsed.runId === 'string' ? parsed.runId : null;
  } catch {
    return null;
  }
}
