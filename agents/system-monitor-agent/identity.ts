import type { SpecialistIdentity } from '../../src/worker-sdk/lane-result.js';

export const MONITOR_IDENTITY: SpecialistIdentity = {
  role: 'system-monitor-agent',
  workflowStage: 'monitor',
  deliverable: 'health posture with checks',
};

export const TRIAGE_IDENTITY: SpecialistIdentity = {
  role: 'system-monitor-agent',
  workflowStage: 'triage',
  deliverable: 'ranked incident queue',
};

/** Why a control-plane lane cannot work without the service's snapshot. */
export const NO_SNAPSHOT_REASON =
  'the payload carries no control-plane snapshot (__controlPlane): the lane judges the service from the snapshot the service sends and cannot read the state store itself';
