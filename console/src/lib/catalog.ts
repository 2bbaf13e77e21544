import type { ResultViewSpec } from '../../../src/task-types/result-view.js';
import type { PayloadSchema } from './trigger-body.js';

/** The fields the console reads from an entry of `GET /api/tasks/catalog`. */
export interface CatalogEntry {
  type: string;
  label: string;
  purpose?: string;
  publicTriggerable: boolean;
  /** `operator`: a type from the service's task types folder (docs/task-types.md), else `built-in`. */
  source?: 'builtin' | 'operator';
  approvalGated: boolean;
  /** An operator may start it as a manual incident remediation. */
  remediation?: boolean;
  operationalStatus: string;
  dependencyClass: string;
  caveats?: string[];
  payloadSchema: PayloadSchema | null;
  /** Which result fields the run page shows as verdict, findings, tests, text, gates, metrics. */
  resultView?: ResultViewSpec;
  telemetryOverlay: { totalRuns: number; successRate: number | null };
}

export interface Catalog {
  count: number;
  tasks: CatalogEntry[];
}

export const CATALOG_PATH = '/api/tasks/catalog';

/** The task types the incident page offers as a manual remediation, in catalog order. */
export function remediationTaskTypes(entries: readonly CatalogEntry[]): string[] {
  return entries.filter((e) => e.remediation === true).map((e) => e.type);
}
