import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * The one signed-text format of the service's short-lived credentials (scoped tokens, approval
 * links): `<prefix><base64url claims JSON>.<base64url HMAC-SHA256>`. The MAC covers the prefix too,
 * so a text minted for one purpose (a link) never opens as another (a token).
 */
export type OpenResult<T> = { ok: true; claims: T } | { ok: false; reason: 'malformed' | 'bad_signature' };

const mac = (key: Buffer, prefix: string, body: string) => createHmac('sha256', key).update(`${prefix}${body}`, 'utf8').digest();

export function signText(key: Buffer, prefix: string, claims: object): string {
  const body = Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');
  return `${prefix}${body}.${mac(key, prefix, body).toString('base64url')}`;
}

/** Checks the MAC in constant time before anything reads the claims. */
export function openText<T>(key: Buffer, prefix: string, text: string): OpenResult<T> {
  if (!text.startsWith(prefix)) return { ok: false, reason: 'malformed' };
  const [body, signature, extra] = text.slice(prefix.length).split('.');
  if (body === undefined || signature === undefined || extra !== undefined || body === '') return { ok: false, reason: 'malformed' };
  const presented = Buffer.from(signature, 'base64url');
  const expected = mac(key, prefix, body);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return { ok: false, reason: 'bad_signature' };
  try {
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as unknown;
    if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) return { ok: false, reason: 'malformed' };
    return { ok: true, claims: claims as T };
  } catch {
    return { ok: false, reason: 'malformed' };
  }
}

/**
 * The signing key: TOKEN_SIGNING_SECRET when set, else one derived from WEBHOOK_SECRET with HKDF
 * under its own label. Every instance of a deployment has the same secrets, so a token minted by
 * one verifies on all; a derived key never reveals the webhook secret, and rotating either secret
 * ends every token and link at once.
 */
export function signingKey(tokenSecret: string | null, webhookSecret: string): Buffer {
  if (tokenSecret !== null) return Buffer.from(hkdfSync('sha256', tokenSecret, '', 'orchestrator token signing', 32));
  return Buffer.from(hkdfSync('sha256', webhookSecret, '', 'orchestrator token signing (derived from WEBHOOK_SECRET)', 32));
}
