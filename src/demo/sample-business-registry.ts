import { codeIndexType } from '../lanes/code-index/definition.js';
import { contentGenerateType } from '../lanes/content-generate/definition.js';
import { securityAuditType } from '../lanes/security-audit/definition.js';
import { summarizeContentType } from '../lanes/summarize-content/definition.js';
import { SAMPLE_PROJECT_DIR } from './sample-project.js';

/**
 * The business registry the demo seeds (schema 2.0.1), for the small inventory tool of the
 * sample project. It shows every kind of entry: a KPI whose value is unknown (null with a
 * reason), a deal of unknown value, risks whose mitigations are safe internal lanes, and
 * pipeline actions (outreach, a commercial commitment) that the planner only lists for an
 * operator. Nothing in it is a real business figure.
 */
export const SAMPLE_BUSINESS_REGISTRY = {
  schemaVersion: '2.0.1',
  mission: 'Keep small shops stocked without overbuying: a dependable inventory and reorder tool.',
  updatedAt: '2026-11-01T09:00:00.000Z',
  strategicInitiatives: [
    {
      id: 'reorder-accuracy',
      title: 'Reorder accuracy',
      objective: 'Cut stock-outs by suggesting reorders from real consumption instead of fixed thresholds.',
      priority: 1,
      status: 'active',
      kpis: [
        { id: 'stockout-rate', name: 'Weekly stock-out rate', unit: '%', target: 2, current: 5, higherIsBetter: false },
        { id: 'suggestion-acceptance', name: 'Accepted reorder suggestions', unit: '%', target: 70, current: null, unknownReason: 'acceptance is not measured yet' },
      ],
    },
    {
      id: 'onboarding-docs',
      title: 'Onboarding documentation',
      objective: 'A new shop sets the tool up in one sitting from the README alone.',
      priority: 3,
      status: 'active',
      kpis: [{ id: 'setup-time', name: 'Median setup time', unit: 'min', target: 30, current: null, unknownReason: 'no setup sessions observed yet' }],
    },
  ],
  businessRisks: [
    {
      id: 'leaked-supplier-token',
      title: 'A supplier API token committed to the repository',
      likelihood: 3,
      impact: 5,
      status: 'open',
      mitigation: {
        kind: 'internal-task',
        summary: 'Scan the sample project for committed secrets',
        taskType: securityAuditType.type,
        payload: { type: 'secrets', scope: SAMPLE_PROJECT_DIR },
      },
    },
    {
      id: 'supplier-price-drift',
      title: 'Supplier price lists drift from what the tool assumes',
      likelihood: 2,
      impact: 3,
      status: 'open',
      mitigation: { kind: 'private-source-access', summary: 'Read the suppliers’ private price portals' },
    },
  ],
  coverageGaps: [
    {
      id: 'no-reorder-tests',
      area: 'Reorder logic tests',
      severity: 'critical',
      description: 'The reorder suggestion has no test for seasonal demand.',
      initiativeId: 'reorder-accuracy',
    },
    {
      id: 'no-code-map',
      area: 'Code map',
      severity: 'medium',
      description: 'Nobody has an overview of which module imports which.',
      nextAction: { kind: 'internal-task', summary: 'Index the sample project', taskType: codeIndexType.type, payload: { scope: SAMPLE_PROJECT_DIR } },
    },
  ],
  approvalPolicy: {
    autoEnqueueTaskTypes: [contentGenerateType.type, securityAuditType.type, codeIndexType.type, summarizeContentType.type],
    maxTasksPerCycle: 1,
    approver: 'operator',
  },
  pipeline: [
    {
      id: 'corner-grocer',
      title: 'Corner grocer pilot',
      stage: 'proposal',
      valueUsd: 4800,
      nextAction: { kind: 'commercial-commitment', summary: 'Offer a three-month pilot at a fixed price' },
      updatedAt: '2026-10-28T15:00:00.000Z',
    },
    {
      id: 'farm-shop-coop',
      title: 'Farm shop cooperative',
      stage: 'lead',
      valueUsd: null,
      valueUnknownReason: 'the cooperative has not said how many shops would join',
      nextAction: { kind: 'outreach', summary: 'Email the cooperative’s buyer with a demo invitation' },
    },
  ],
} as const;
