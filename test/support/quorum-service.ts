import { afterAll, beforeAll } from 'vitest';
import { startComposedService, type ComposedService } from './composed-service.js';
import { apiClient } from './http.js';
import { TEST_KEYS } from './keys.js';

/** Operators of the release group (one of them the requester), one outside it, and the test viewer. */
export const QUORUM_KEYS = {
  requester: 'quorum-requester-key-01',
  alice: 'quorum-alice-key-0001',
  bob: 'quorum-bob-key-000001',
  outsider: 'quorum-outsider-key-01',
};

const ROTATION = JSON.stringify([
  { key: QUORUM_KEYS.requester, label: 'requester', role: 'operator', groups: ['release'] },
  { key: QUORUM_KEYS.alice, label: 'alice:v1', role: 'operator', groups: ['release', 'sre'] },
  { key: QUORUM_KEYS.bob, label: 'bob', role: 'admin', groups: ['release'] },
  { key: QUORUM_KEYS.outsider, label: 'outsider', role: 'operator' },
  { key: TEST_KEYS.viewer, label: 'viewer-bot', role: 'viewer' },
]);

/**
 * The composed service (runner on) under a two-person rule for agent-deploy: two approvals from
 * the release group, the requester never counting, with QUORUM_KEYS as its keys.
 */
export function startQuorumService(): Promise<ComposedService> {
  return startComposedService({
    runtime: true,
    config: { approvalPolicy: { 'agent-deploy': { requiredApprovals: 2, approverGroups: ['release'], allowSelfApproval: false } } },
    env: { API_KEY_ROTATION: ROTATION },
  });
}

/**
 * Starts the quorum service before the tests of the calling `describe` and closes it after them;
 * read `svc` and `api` inside the tests.
 */
export function useQuorumService(): { svc: ComposedService; api: ReturnType<typeof apiClient> } {
  const fixture = {} as { svc: ComposedService; api: ReturnType<typeof apiClient> };
  beforeAll(async () => {
    fixture.svc = await startQuorumService();
    fixture.api = apiClient(fixture.svc.url);
  });
  afterAll(async () => {
    await fixture.svc?.close();
  });
  return fixture;
}
