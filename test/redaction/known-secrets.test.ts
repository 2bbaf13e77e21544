import { describe, expect, it } from 'vitest';
import { createSecretRedactor, KNOWN_SECRET_MARKER } from '../../src/redaction/known-secrets.js';
import { createLineRedactor } from '../../src/runlogs/redact-line.js';

const LONG = 'abcdef-secret-long-0001';
const PREFIX = 'abcdef-secret';

describe('the secret redactor', () => {
  const redact = createSecretRedactor([PREFIX, LONG, 'short', '']);

  it('replaces every known secret in text, the longest first, and leaves values under 6 characters alone', () => {
    expect(redact.text(`a ${LONG} b ${PREFIX} c short`)).toBe(`a ${KNOWN_SECRET_MARKER} b ${KNOWN_SECRET_MARKER} c short`);
    expect(redact.secrets).toEqual([LONG, PREFIX]);
  });

  it('replaces secrets in the strings and keys of a JSON value, at any depth, without touching other values', () => {
    const value = { list: [1, null, true, `x${LONG}y`], [PREFIX]: { inner: PREFIX }, n: 3 };
    expect(redact.value(value)).toEqual({ list: [1, null, true, `x${KNOWN_SECRET_MARKER}y`], [KNOWN_SECRET_MARKER]: { inner: KNOWN_SECRET_MARKER }, n: 3 });
    expect(value[PREFIX].inner).toBe(PREFIX);
  });

  it('hands back the very value when it holds no secret (nothing is copied)', () => {
    const value = { a: ['plain', { b: 'text' }] };
    expect(redact.value(value)).toBe(value);
    expect(redact.value('plain')).toBe('plain');
    expect(redact.value(null)).toBeNull();
  });

  it('is the one the run-log lines use before memory recall\'s rules', () => {
    expect(createLineRedactor([LONG])(`printed ${LONG}`)).toBe(`printed ${KNOWN_SECRET_MARKER}`);
  });
});
