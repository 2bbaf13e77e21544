import { installedTaskTypes } from '../task-types/installed.js';
import { createTaskTypeRegistry, type TaskTypeRegistry } from '../task-types/registry.js';
import type { TaskRole, TaskType } from '../task-types/task-type.js';
import { ProgrammingError } from '../domain/errors.js';
import { startupType } from './startup/definition.js';
import { docChangeType } from './doc-change/definition.js';
import { heartbeatType } from './heartbeat/definition.js';
import { docSyncType } from './doc-sync/definition.js';
import { businessValueCycleType } from './business-value-cycle/definition.js';
import { driftRepairType } from './drift-repair/definition.js';
import { rssSweepType } from './rss-sweep/definition.js';
import { nightlyBatchType } from './nightly-batch/definition.js';
import { sendDigestType } from './send-digest/definition.js';
import { communityResponseType } from './community-response/definition.js';
import { contentGenerateType } from './content-generate/definition.js';
import { marketResearchType } from './market-research/definition.js';
import { dataExtractionType } from './data-extraction/definition.js';
import { normalizeDataType } from './normalize-data/definition.js';
import { summarizeContentType } from './summarize-content/definition.js';
import { controlPlaneBriefType } from './control-plane-brief/definition.js';
import { incidentTriageType } from './incident-triage/definition.js';
import { releaseReadinessType } from './release-readiness/definition.js';
import { deploymentOpsType } from './deployment-ops/definition.js';
import { codeIndexType } from './code-index/definition.js';
import { testIntelligenceType } from './test-intelligence/definition.js';
import { securityAuditType } from './security-audit/definition.js';
import { systemMonitorType } from './system-monitor/definition.js';
import { qaVerificationType } from './qa-verification/definition.js';
import { skillAuditType } from './skill-audit/definition.js';
import { integrationWorkflowType } from './integration-workflow/definition.js';
import { complianceReviewType } from './compliance-review/definition.js';
import { buildRefactorType } from './build-refactor/definition.js';
import { agentDeployType } from './agent-deploy/definition.js';
import { autonomousIntakeCycleType } from './autonomous-intake-cycle/definition.js';
import { autonomousWorkCycleType } from './autonomous-work-cycle/definition.js';

/**
 * The task types this build ships, one module each under src/lanes/<type>/, in catalog order.
 * Adding a built-in type is adding its folder and one line here.
 */
export const BUILT_IN_TASK_TYPES = [
  startupType,
  docChangeType,
  heartbeatType,
  docSyncType,
  businessValueCycleType,
  driftRepairType,
  rssSweepType,
  nightlyBatchType,
  sendDigestType,
  communityResponseType,
  contentGenerateType,
  marketResearchType,
  dataExtractionType,
  normalizeDataType,
  summarizeContentType,
  controlPlaneBriefType,
  incidentTriageType,
  releaseReadinessType,
  deploymentOpsType,
  codeIndexType,
  testIntelligenceType,
  securityAuditType,
  systemMonitorType,
  qaVerificationType,
  skillAuditType,
  integrationWorkflowType,
  complianceReviewType,
  buildRefactorType,
  agentDeployType,
  autonomousIntakeCycleType,
  autonomousWorkCycleType,
] as const satisfies readonly TaskType[];

export const BUILT_IN_REGISTRY = createTaskTypeRegistry(BUILT_IN_TASK_TYPES);

/**
 * The registry of the running service, or the built-in one in a process that composed no service
 * (a tool, a worker, a test of one module). Every reader of the catalog goes through it.
 */
export function taskTypes(): TaskTypeRegistry {
  return installedTaskTypes() ?? BUILT_IN_REGISTRY;
}

/**
 * The type that plays `role` (src/task-types/task-type.ts TaskRole): how a module asks for "the
 * incident verifier" or "the docs indexer" without naming a type. Every role has a built-in type.
 */
export function typeWithRole(role: TaskRole): string {
  const found = taskTypes().withRole(role) ?? BUILT_IN_REGISTRY.withRole(role);
  if (!found) throw new ProgrammingError(`no task type plays the role '${role}'`);
  return found.type;
}
