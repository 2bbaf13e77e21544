/**
 * Types of API records, taken from the service's own schemas (type-only imports: nothing of
 * the service reaches the bundle). A schema change breaks the console's type-check, not a page.
 */
export type { RunStats, RunStatsWindow } from '../../../src/aggregates/run-stats.js';
export type { FlowStepView, FlowSummary, FlowView } from '../../../src/flows/flow-view.js';
export type { ScheduleCreate, ScheduleList, SchedulePatch, ScheduleView } from '../../../src/schedules/schedule-record.js';
export type { IncidentRecord } from '../../../src/incidents/types.js';
export type { ApprovalWithPayload, DecisionAnswer, PendingApproval, PendingApprovals } from '../../../src/runtime/approval-answer.js';
export type { ExtendedHealth } from '../../../src/aggregates/extended-health-answer.js';
export type { Topology } from '../../../src/agents/topology.js';
export type { QueueAnswer } from '../../../src/runtime/queue-view.js';
