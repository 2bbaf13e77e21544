import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';

export interface IntelligenceInput {
  scope: string;
  /** Reports named by the caller, or null to search the scope. */
  reports: string[] | null;
}

/**
 * The payload in working form. The schema has checked that scope is a path and reports a list of
 * at most 50 paths; whether they lie inside the workspace and the scope is checked where they
 * are read (find-reports.ts). An empty list means the same as none: search the scope.
 */
export function readIntelligenceInput(payload: LanePayload<'test-intelligence'>): IntelligenceInput {
  const { scope, reports } = payload;
  return { scope: scope.trim(), reports: reports === undefined || reports.length === 0 ? null : reports };
}
