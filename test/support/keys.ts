/** Bearer keys used across tests; each role plus an expired and an inactive one. */
export const TEST_KEYS = {
  viewer: 'test-viewer-key-0001',
  operator: 'test-operator-key-0001',
  admin: 'test-admin-key-0001',
  expired: 'test-expired-key-0001',
  inactive: 'test-inactive-key-0001',
  expiring: 'test-expiring-key-0001',
} as const;

export const TEST_WEBHOOK_SECRET = 'test-webhook-secret-0001';

/** API_KEY_ROTATION value holding every test key. */
export function testKeyRotation(): string {
  return JSON.stringify([
    { key: TEST_KEYS.viewer, label: 'viewer-bot', role: 'viewer' },
    { key: TEST_KEYS.operator, label: 'ops:v2', role: 'operator' },
    { key: TEST_KEYS.admin, label: 'admin-user', roles: ['viewer', 'admin'] },
    { key: TEST_KEYS.expired, label: 'old-key', role: 'admin', expiresAt: '2020-01-01T00:00:00Z' },
    { key: TEST_KEYS.inactive, label: 'disabled-key', role: 'admin', active: false },
    { key: TEST_KEYS.expiring, label: 'temp-key', role: 'viewer', expiresAt: '2099-01-01T00:00:00Z' },
  ]);
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
