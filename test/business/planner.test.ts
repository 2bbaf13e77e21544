import { describe, expect, it } from 'vitest';
import { rankCandidates, selectCandidate, type PlannerContext } from '../../src/business/planner.js';
import type { BusinessRegistry } from '../../src/business/registry-schema.js';
import { SAMPLE_BUSINESS_REGISTRY } from '../../src/demo/sample-business-registry.js';

const registry = () => JSON.parse(JSON.stringify(SAMPLE_BUSINESS_REGISTRY)) as BusinessRegistry;
const context = (over: Partial<PlannerContext> = {}): PlannerContext => ({ inFlight: new Set(), checkPayload: () => null, ...over });

describe('business planner scoring', () => {
  it('ranks the sample registry by the documented scores, best first', () => {
    const ranked = rankCandidates(registry(), context());
    expect(ranked.map((c) => [c.candidateId, c.score])).toEqual([
      // priority 1 → 50; stock-out 5% against a 2% target (lower is better) → shortfall capped at 1 → 20
      ['initiative:reorder-accuracy', 70],
      // critical gap 45 + linked to an active initiative 10
      ['coverage-gap:no-reorder-tests', 55],
      // proposal 20 + round(log10(1 + 4800) × 3) = 11
      ['pipeline:corner-grocer', 31],
      // priority 3 → 30; its only KPI is unknown → 0 (ties with the risk below; the id decides)
      ['initiative:onboarding-docs', 30],
      // likelihood 3 × impact 5 × 2
      ['risk:leaked-supplier-token', 30],
      // medium gap 15, not linked
      ['coverage-gap:no-code-map', 15],
      // likelihood 2 × impact 3 × 2
      ['risk:supplier-price-drift', 12],
      // lead 5; value unknown → 0
      ['pipeline:farm-shop-coop', 5],
    ]);
  });

  it('keeps unknown KPI and deal values explicit and scores them nothing', () => {
    const ranked = rankCandidates(registry(), context());
    const onboarding = ranked.find((c) => c.candidateId === 'initiative:onboarding-docs')!;
    expect(onboarding.unknowns).toEqual([{ field: '/strategicInitiatives/1/kpis/0/current', reason: 'no setup sessions observed yet' }]);
    expect(onboarding.scoreBreakdown).toContainEqual({ factor: 'kpi-shortfall', points: 0, note: 'no KPI with a known value and target' });
    const coop = ranked.find((c) => c.candidateId === 'pipeline:farm-shop-coop')!;
    expect(coop.unknowns).toEqual([{ field: '/pipeline/1/valueUsd', reason: 'the cooperative has not said how many shops would join' }]);
  });

  it('lists outreach, commitments and private-source access as approval-gated and never selects them', () => {
    const data = registry();
    // Make every internal candidate ineligible: only forbidden kinds remain.
    data.approvalPolicy.autoEnqueueTaskTypes = [];
    const ranked = rankCandidates(data, context());
    const gated = ranked.filter((c) => c.disposition === 'approval-gated').map((c) => [c.candidateId, c.action.kind]);
    expect(gated).toEqual([
      ['pipeline:corner-grocer', 'commercial-commitment'],
      ['risk:supplier-price-drift', 'private-source-access'],
      ['pipeline:farm-shop-coop', 'outreach'],
    ]);
    expect(ranked.every((c) => c.disposition !== 'eligible')).toBe(true);
    expect(selectCandidate(ranked)).toBeNull();
  });

  it('selects the best eligible internal candidate: a planning brief for the top initiative', () => {
    const chosen = selectCandidate(rankCandidates(registry(), context()))!;
    expect(chosen.candidateId).toBe('initiative:reorder-accuracy');
    expect(chosen.action).toEqual({ kind: 'internal-task', summary: 'Draft a planning brief for Reorder accuracy', taskType: 'content-generate' });
    expect(chosen.payload).toMatchObject({ type: 'status-update', style: 'internal', source: { name: 'Reorder accuracy' } });
  });

  it('passes over a candidate still in flight or whose payload would be refused, with the reason', () => {
    const ranked = rankCandidates(
      registry(),
      context({
        inFlight: new Set(['initiative:reorder-accuracy']),
        checkPayload: (type) => (type === 'content-generate' ? 'payload refused for the test' : null),
      }),
    );
    expect(ranked.find((c) => c.candidateId === 'initiative:reorder-accuracy')).toMatchObject({ disposition: 'in-flight' });
    expect(ranked.find((c) => c.candidateId === 'coverage-gap:no-reorder-tests')).toMatchObject({
      disposition: 'invalid-payload',
      dispositionReason: 'payload refused for the test',
    });
    expect(selectCandidate(ranked)?.candidateId).toBe('risk:leaked-supplier-token');
  });

  it('is deterministic for the same registry and context', () => {
    expect(rankCandidates(registry(), context())).toEqual(rankCandidates(registry(), context()));
  });
});
