/**
 * What one cycle plans and enqueues: reads the registry, ranks its candidates, admits at most
 * one safe internal task through the one admission path (under the stable run id
 * `business-task:<cycleId>`, so a re-executed cycle finds the task it already admitted), lists
 * what only an operator may decide, and records the cycle `completed` or `blocked` with its
 * evidence. A missing or invalid registry blocks the cycle with the problems as its blockers.
 */

import type { Admit } from '../runtime/admission.js';
import { SERVICE_RUN_ID_PREFIXES } from '../domain/service-run-ids.js';
import { actorList } from '../runtime/run-requesters.js';
import { FINISH_WAIT_MS, type CycleGate } from './cycle-gate.js';
import type { CycleOutcome } from './cycle-outcome.js';
import type { CycleRecord } from './cycle-rules.js';
import type { PlannerContextReader } from './planner-context.js';
import { rankCandidates, selectCandidate } from './planner.js';
import type { RegistrySource } from './registry-source.js';
import type { RunStatusReader } from './run-status.js';

/** How many ranked candidates a cycle record and the overview keep. */
export const CANDIDATES_KEPT = 25;
/** The actor of the task a cycle's planner admits (beside whoever triggered the cycle). */
const PLANNER_ACTOR = 'business-planner';
const taskRunIdOf = (cycleId: string) => `${SERVICE_RUN_ID_PREFIXES.businessTask}${cycleId}`;

export interface CyclePlanningDeps {
  admit: Admit;
  withGate: CycleGate;
  outcome: CycleOutcome;
  registry: RegistrySource;
  plannerContext: PlannerContextReader;
  runStatus: RunStatusReader;
}

export type PlanCycle = (cycle: CycleRecord) => Promise<{ finished: CycleRecord; summary: string }>;

export function createCyclePlanning(deps: CyclePlanningDeps): PlanCycle {
  const { withGate, outcome, runStatus } = deps;
  return async (cycle) => {
    const registry = await deps.registry.load();
    const registryName = deps.registry.name();
    const registryEvidence = {
      status: registry.status,
      fingerprint: registry.fingerprint,
      schemaVersion: registry.status === 'ok' ? registry.schemaVersion : null,
      problems: registry.status === 'ok' ? [] : registry.problems,
    };
    if (registry.status !== 'ok') {
      const summary = `blocked: ${registry.reason}`;
      const finished = await withGate(FINISH_WAIT_MS, () =>
        outcome.finish(
          cycle,
          {
            state: 'blocked',
            registry: registryEvidence,
            evidence: [`registry ${registryName}: ${registry.status}`],
            blockers: [registry.reason],
            nextActions: [`Fix the business registry at ${registryName} (schema version 2.0.1), then trigger a cycle.`],
          },
          summary,
          false,
          registry.fingerprint ? `${registry.fingerprint}|none:none` : null,
        ),
      );
      return { finished, summary };
    }
    const ranked = rankCandidates(registry.registry, await deps.plannerContext());
    const chosen = selectCandidate(ranked);
    const approvalGated = ranked
      .filter((c) => c.disposition === 'approval-gated')
      .map((c) => ({ candidateId: c.candidateId, kind: c.action.kind, reason: c.dispositionReason ?? 'needs an operator' }));
    const evidence = [
      `registry ${registryName} schema ${registry.schemaVersion} fingerprint ${registry.fingerprint}`,
      `${ranked.length} candidate(s) ranked; ${ranked.filter((c) => c.disposition === 'eligible').length} eligible; ${approvalGated.length} approval-gated`,
    ];
    let selected: CycleRecord['selected'] = null;
    if (chosen?.action.taskType && chosen.payload) {
      const { idempotencyKey: _ignored, requiresApproval: _alsoIgnored, ...payload } = chosen.payload;
      const admission = await deps.admit({
        type: chosen.action.taskType,
        payload,
        source: 'system',
        requestedBy: PLANNER_ACTOR,
        // The planner chose the task for whoever triggered the cycle.
        requesters: actorList([PLANNER_ACTOR, cycle.trigger.requestedBy]),
        forceRunId: taskRunIdOf(cycle.cycleId),
      });
      selected = { candidateId: chosen.candidateId, taskType: chosen.action.taskType, runId: admission.run.runId, taskId: admission.run.taskId, admission: admission.kind };
      evidence.push(`enqueued ${chosen.action.taskType} as run ${admission.run.runId} (${admission.kind}) for ${chosen.candidateId} (score ${chosen.score})`);
    }
    const blockers = selected ? [] : ['no candidate is eligible for automatic enqueueing (see candidates[].dispositionReason)'];
    const nextActions = [
      ...(selected ? [`Follow run ${selected.runId} (GET /api/tasks/runs/${encodeURIComponent(selected.runId)}).`] : []),
      ...approvalGated.map((c) => `Decide ${c.candidateId} (${c.kind}) yourself: the planner never performs it.`),
    ];
    const summary = selected ? `completed: enqueued ${selected.taskType} for ${selected.candidateId}` : 'blocked: no eligible candidate';
    const inputs = `${registry.fingerprint}|${selected?.runId ?? 'none'}:${(await runStatus(selected?.runId)) ?? 'none'}`;
    const finished = await withGate(FINISH_WAIT_MS, () =>
      outcome.finish(
        cycle,
        {
          state: selected ? 'completed' : 'blocked',
          registry: registryEvidence,
          candidates: ranked.slice(0, CANDIDATES_KEPT),
          selected,
          approvalGated,
          evidence,
          blockers,
          nextActions,
        },
        summary,
        false,
        inputs,
      ),
    );
    return { finished, summary };
  };
}
