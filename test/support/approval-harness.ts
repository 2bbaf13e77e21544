import { join } from 'node:path';
import pino from 'pino';
import type { ApprovalPolicyEntry } from '../../src/config/schema.js';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import { DomainError } from '../../src/domain/errors.js';
import { createApprovalEscalation } from '../../src/incidents/approval-escalation.js';
import { createIncidentLedger } from '../../src/incidents/ledger.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { createAdmission } from '../../src/runtime/admission.js';
import { createApprovalPolicy, type ApprovalPolicy } from '../../src/runtime/approval-policy.js';
import { createApprovals, type ApprovalsDeps } from '../../src/runtime/approvals.js';
import { TASK_CATALOG } from '../../src/runtime/catalog.js';
import { manualClock } from './clocks.js';
import { tempDir } from './config.js';
import { testLaneRegistry } from './lanes.js';

const TYPES = TASK_CATALOG.map((e) => e.type);
const silent = pino({ level: 'silent' });

/**
 * Approvals under a configured policy over one state store, with admission and the incident
 * ledger an escalation opens into. `instance()` builds one service instance's approvals; tests
 * build two over the same store to race them. `openStore` defaults to a fresh JSON file store.
 */
export async function approvalHarness(configured: Record<string, ApprovalPolicyEntry>, openStore?: () => StateStore) {
  const store = openStore ? openStore() : openStateStore(join(tempDir('approvals-'), 'state.json'));
  await store.open();
  const clock = manualClock('2026-03-01T10:00:00.000Z');
  const invalidator = { invalidate: async () => undefined };
  const policy: ApprovalPolicy = createApprovalPolicy(configured, TYPES);
  const admit = createAdmission({ store, clock, invalidator, onReady: () => undefined, telemetryRetention: 100, approvalPolicy: policy });
  const coordination = new MemoryCoordination({ cacheMaxEntries: 10, cacheMaxBytes: 100_000 });
  const ledger = createIncidentLedger({ store, coordination, clock, invalidator });
  const policiesRun: string[] = [];
  const escalation = createApprovalEscalation({ ledger, clock, runPolicies: async (id) => void policiesRun.push(id) });
  const instance = (over: StateStore = store, extra: Partial<ApprovalsDeps> = {}) =>
    createApprovals({ store: over, clock, invalidator, admit, lanes: testLaneRegistry(), policy, escalation, logger: silent, ...extra });
  const hold = async (requestedBy: string, type = 'system-monitor', payload: Record<string, unknown> = { requiresApproval: true }) =>
    (await admit({ type, payload, source: 'api', requestedBy })).run;
  return { store, clock, admit, ledger, instance, hold, policiesRun };
}

/** A domain refusal as `{code, message}`, or null when the promise resolved. */
export const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (err: unknown) => (err instanceof DomainError ? { code: err.code, message: err.message, details: err.details } : { code: 'thrown', message: String(err) }),
  );
