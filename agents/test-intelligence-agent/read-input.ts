export interface IntelligenceInput {
  scope: string;
  /** Reports named by the caller, or null to search the scope. */
  reports: string[] | null;
}

export const MAX_NAMED_REPORTS = 50;

export function readIntelligenceInput(payload: Readonly<Record<string, unknown>>): IntelligenceInput | { problem: string } {
  const { scope, reports } = payload;
  if (typeof scope !== 'string' || scope.trim() === '') {
    return { problem: 'payload.scope must name the workspace folder (relative path) that holds the project or its reports' };
  }
  if (reports !== undefined) {
    if (!Array.isArray(reports) || reports.some((r) => typeof r !== 'string' || r.trim() === '')) {
      return { problem: 'payload.reports must be a list of workspace-relative report paths' };
    }
    if (reports.length > MAX_NAMED_REPORTS) return { problem: `payload.reports names more than ${MAX_NAMED_REPORTS} reports` };
  }
  return { scope: scope.trim(), reports: reports === undefined || reports.length === 0 ? null : (reports as string[]) };
}
