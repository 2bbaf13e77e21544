import { createHash } from 'node:crypto';
import { ProgrammingError } from '../domain/errors.js';

/**
 * Stable fingerprints: one per thing that can go wrong, so every observation of it lands on the
 * same incident. A run lineage is its run id (retries are attempts of the same run, so a run that
 * exhausts its retries is one incident, not one per attempt).
 */
export const Fingerprints = {
  run: (runId: string) => `run:${runId}`,
  serviceGap: (agentId: string) => `service-gap:${agentId}`,
  approvalBacklog: () => 'approval-backlog',
  /** One held approval that expired under `onExpiry: "escalate"` (by its approval id, the held task id). */
  approvalExpired: (taskId: string) => `approval-expired:${taskId}`,
  stateStore: () => 'persistence:state-store',
  coordination: () => 'persistence:coordination',
  knowledgeStaleness: () => 'knowledge:staleness',
  knowledgeContradictions: () => 'knowledge:contradictions',
  /** Alertmanager's own fingerprint when it sends one, else a hash of the sorted labels (as it computes it). */
  alert: (alertFingerprint: string | undefined, labels: Record<string, string>) =>
    `alert:${alertFingerprint && alertFingerprint.trim() !== '' ? alertFingerprint.trim() : labelHash(labels)}`,
} as const;

export const MAX_FINGERPRINT_LENGTH = 300;

export function labelHash(labels: Record<string, string>): string {
  const canonical = Object.keys(labels)
    .sort()
    .map((k) => `${k}\u0000${labels[k]}`)
    .join('\u0001');
  return createHash('sha256').update(canonical).digest('hex').slice(0, 16);
}

export function normalizeFingerprint(fingerprint: string): string {
  const trimmed = fingerprint.trim();
  if (trimmed === '' || trimmed.length > MAX_FINGERPRINT_LENGTH) {
    // Fingerprints are built by the service (Fingerprints above) from bounded parts: run ids (an
    // idempotency key is at most 200 characters) and the alert webhook's own (at most 200).
    throw new ProgrammingError(`incident fingerprint must be 1-${MAX_FINGERPRINT_LENGTH} characters, got ${trimmed.length}`);
  }
  return trimmed;
}

/** Namespace of incident ids (a fixed random UUID; RFC 9562 name-based ids need one). */
const INCIDENT_NAMESPACE = '5b0f4a52-8a4e-4b7c-9d3e-6c2a1f0e9b71';

/**
 * The incident id of a fingerprint: a name-based UUID (version 5, RFC 9562). Deriving it rather
 * than storing a fingerprint index makes "find or open the incident of this fingerprint" one
 * keyed read on every store and every instance, with no index to keep consistent.
 */
export function incidentIdFor(fingerprint: string): string {
  const namespace = Buffer.from(INCIDENT_NAMESPACE.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(namespace).update(normalizeFingerprint(fingerprint), 'utf8').digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
