import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Coordination } from '../coordination/types.js';

/** How far the signed timestamp may be from the service's clock. */
export const SIGNATURE_WINDOW_SECONDS = 300;
/** Seen signatures are remembered past the whole window on both sides, so a replay is always caught. */
const REPLAY_MEMORY_MS = (2 * SIGNATURE_WINDOW_SECONDS + 60) * 1000;
const REPLAY_SET = 'webhook-alert-signatures';

export interface SignedDelivery {
  rawBody: string;
  /** `X-Orchestrator-Signature`: `sha256=<hex>`. */
  signature: string | undefined;
  /** `X-Orchestrator-Timestamp`: unix seconds. */
  timestamp: string | undefined;
}

export type SignatureCheck = { ok: true; digest: string } | { ok: false; reason: 'missing' | 'malformed' | 'stale' | 'mismatch' | 'replayed' };

/** `sha256=<hex>` of HMAC-SHA256 over `<timestamp>.<raw body>`: what a sender puts in the header. */
export function signAlertDelivery(secret: string, timestamp: string, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest('hex')}`;
}

/**
 * The stateless half of the check: header shapes, the 300 s window, then a constant-time compare
 * of the digests. Pure, so it is tested without a clock or a store.
 */
export function verifyAlertSignature(secret: string, delivery: SignedDelivery, nowMs: number): SignatureCheck {
  const { signature, timestamp } = delivery;
  if (!signature || !timestamp) return { ok: false, reason: 'missing' };
  const match = /^sha256=([0-9a-f]{64})$/i.exec(signature.trim());
  if (!match || !/^\d{1,12}$/.test(timestamp.trim())) return { ok: false, reason: 'malformed' };
  const seconds = Number(timestamp.trim());
  if (Math.abs(nowMs / 1000 - seconds) > SIGNATURE_WINDOW_SECONDS) return { ok: false, reason: 'stale' };
  const expected = Buffer.from(signAlertDelivery(secret, timestamp.trim(), delivery.rawBody).slice('sha256='.length), 'hex');
  const given = Buffer.from(match[1]!.toLowerCase(), 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'mismatch' };
  return { ok: true, digest: given.toString('hex') };
}

/**
 * The whole check: the signature, then replay refusal through the coordination port (a dedupe
 * set with a TTL), so a delivery is accepted once across every instance sharing the store. Only a
 * correctly signed delivery is remembered, so forged requests cannot fill the set.
 */
export async function checkSignedDelivery(secret: string, delivery: SignedDelivery, nowMs: number, coordination: Coordination): Promise<SignatureCheck> {
  const check = verifyAlertSignature(secret, delivery, nowMs);
  if (!check.ok) return check;
  const fresh = await coordination.addUnique(REPLAY_SET, check.digest, REPLAY_MEMORY_MS);
  return fresh ? check : { ok: false, reason: 'replayed' };
}
