import { describe, expect, it } from 'vitest';
import { parseApiKeys } from '../../src/config/keys.js';
import { identityOf } from '../../src/http/auth.js';

const rotation = (entry: Record<string, unknown>) => JSON.stringify([{ key: 'a-key-of-enough-length', label: 'ops:v2', role: 'operator', ...entry }]);

describe('approver groups on API_KEY_ROTATION keys', () => {
  it('reads groups (each once) and hands them to the identity; a key without any has none', () => {
    const [withGroups] = parseApiKeys(rotation({ groups: ['release', 'sre', 'release'] }), undefined);
    expect(withGroups!.groups).toEqual(['release', 'sre']);
    expect(identityOf(withGroups!)).toMatchObject({ actor: 'ops', groups: ['release', 'sre'] });
    expect(parseApiKeys(rotation({}), 'single-admin-key')).toMatchObject([{ groups: [] }, { label: 'primary-api-key', groups: [] }]);
  });

  it('refuses groups that are not an array of short names, naming the entry', () => {
    for (const groups of ['release', [''], ['has space'], [42], ['x'.repeat(101)]]) {
      expect(() => parseApiKeys(rotation({ groups }), undefined)).toThrow(/API_KEY_ROTATION entry 1 \(ops:v2\): groups must be an array of names/);
    }
  });
});
