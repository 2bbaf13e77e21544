import { describe, expect, it } from 'vitest';
import { normalizeData } from '../../../agents/normalization-agent/normalize.js';
import { defineLane, type LanePayload } from '../../../src/worker-sdk/lane-definition.js';

// A sign-up export as data-extraction hands it over: every value a string, some messy.
const SIGNUPS = [
  { name: '  Ada Okafor ', email: 'Ada@Example.com', age: '36', signedUp: '2026-01-15', newsletter: 'yes', site: 'HTTPS://Ada.Example.com', source: 'web' },
  { name: 'Bram de Vries', email: 'bram@@example.nl', age: '41', signedUp: '2026-02-30', newsletter: 'no', site: '', source: 'fair' },
  { name: 'Ada O.', email: 'ada@example.com ', age: '36', signedUp: '2026-01-20', newsletter: 'true', site: null, source: 'import' },
  { name: 'Chen Wei', email: 'chen@example.cn', age: '1,024', signedUp: '2026-03-01T10:00:00+01:00', newsletter: '0', source: 'web' },
  { name: 'Dana', email: 'dana@example.com', age: 'abc', signedUp: '03/04/2026', newsletter: 'maybe', site: 'javascript:alert(1)' },
  { email: 'eve@example.com', age: '29.5', signedUp: '2026-04-01', newsletter: 'no' },
  { name: 'Frank', email: 'FRANK@example.org', age: 52, signedUp: '2024-02-29', newsletter: 1, site: 'http://frank.example.org:80/blog' },
];

const SCHEMA: LanePayload<'normalize-data'>['schema'] = {
  name: { type: 'string', required: true },
  email: { type: 'email', required: true },
  age: 'integer',
  signedUp: 'date',
  newsletter: 'boolean',
  site: 'url',
};

describe('normalize-data', () => {
  it('coerces to the schema, rejects with every reason and removes the duplicate found after lower-casing', () => {
    const result = normalizeData({ records: SIGNUPS, schema: SCHEMA, dedupeBy: ['email'] });
    expect(result.success).toBe(true);
    if (!result.success) return;
    expect(result.records).toEqual([
      { name: 'Ada Okafor', email: 'ada@example.com', age: 36, signedUp: '2026-01-15', newsletter: true, site: 'https://ada.example.com/', source: 'web' },
      { name: 'Chen Wei', email: 'chen@example.cn', age: 1024, signedUp: '2026-03-01T09:00:00.000Z', newsletter: false, site: null, source: 'web' },
      { name: 'Frank', email: 'frank@example.org', age: 52, signedUp: '2024-02-29', newsletter: true, site: 'http://frank.example.org/blog' },
    ]);
    expect(result.rejected).toEqual([
      {
        index: 1,
        reasons: ['email: "bram@@example.nl" is not a valid email address', 'signedUp: "2026-02-30" is not a real date (2026-02 has no day 30)'],
      },
      {
        index: 4,
        reasons: [
          'age: "abc" is not a number',
          'signedUp: "03/04/2026" is not an ISO 8601 date (YYYY-MM-DD); day/month order cannot be told',
          'newsletter: "maybe" is not a boolean (true/false, yes/no, 1/0)',
          'site: "javascript:alert(1)" uses javascript: but only http and https URLs are accepted',
        ],
      },
      { index: 5, reasons: ['name: required but missing', 'age: "29.5" is not a whole number'] },
    ]);
    expect(result.duplicates).toEqual([{ index: 2, duplicateOf: 0, key: { email: 'ada@example.com' } }]);
    expect(result.stats).toEqual({
      input: 7,
      output: 3,
      rejected: 3,
      duplicatesRemoved: 1,
      coercions: 11,
      coercionsByField: { name: 1, email: 2, age: 2, signedUp: 1, newsletter: 3, site: 2 },
    });
    expect(result.stats.input).toBe(result.stats.output + result.stats.rejected + result.stats.duplicatesRemoved);
    expect(result.specialistContract).toMatchObject({ role: 'normalization-agent', status: 'partial' });
    expect(result.operatorSummary).toBe('Normalized 7 records: 3 kept, 3 rejected, 1 duplicate removed; 11 values coerced.');
  });

  it('handles thousands separators conservatively and keeps untrimmed strings on request', () => {
    const records = ['1,234,567.5', '12,34', '1.234.567', '-0.5', '1e3', '$5', ' 7 '].map((amount) => ({ amount, code: '  AB-1 ' }));
    const result = normalizeData({ records, schema: { amount: 'number', code: { type: 'string', trim: false, lowercase: true } } });
    expect(result.success).toBe(true);
    if (!result.success) return;
    expect(result.records.map((r) => r.amount)).toEqual([1234567.5, -0.5, 1000, 7]);
    expect(result.records[0]!.code).toBe('  ab-1 ');
    expect(result.rejected.map((r) => r.reasons[0])).toEqual([
      'amount: "12,34" is not a number',
      'amount: "1.234.567" is not a number',
      'amount: "$5" is not a number',
    ]);
  });

  it('normalizes dates without inventing a time zone and refuses impossible ones', () => {
    const records = ['2026-03-01 10:30', '2025-02-29', '2026-13-01', '2026-06-31T12:00:00Z', '2026-06-30T24:00:00Z', '2026-06-30T23:59:59.250-05:30'].map((at) => ({ at }));
    const result = normalizeData({ records, schema: { at: 'date' } });
    expect(result.success).toBe(true);
    if (!result.success) return;
    expect(result.records).toEqual([{ at: '2026-03-01T10:30:00' }, { at: '2026-07-01T05:29:59.250Z' }]);
    expect(result.rejected).toEqual([
      { index: 1, reasons: ['at: "2025-02-29" is not a real date (2025-02 has no day 29)'] },
      { index: 2, reasons: ['at: "2026-13-01" is not a real date (month 13)'] },
      { index: 3, reasons: ['at: "2026-06-31T12:00:00Z" is not a real date (2026-06 has no day 31)'] },
      { index: 4, reasons: ['at: "2026-06-30T24:00:00Z" is not a real time of day'] },
    ]);
  });

  it('never treats two records without a key value as duplicates', () => {
    const records = [{ email: '' }, { email: null }, { email: 'a@example.com' }, { email: 'A@EXAMPLE.COM' }];
    const result = normalizeData({ records, schema: { email: 'email' }, dedupeBy: ['email'] });
    expect(result).toMatchObject({
      success: true,
      records: [{ email: null }, { email: null }, { email: 'a@example.com' }],
      duplicates: [{ index: 3, duplicateOf: 2 }],
    });
  });

  it('fails the run when every record is rejected, with the reasons', () => {
    const result = normalizeData({ records: [{ age: 'old' }, { age: '3.5' }], schema: { age: 'integer' } });
    expect(result).toMatchObject({
      success: false,
      error: 'every record was rejected (first: record 0: age: "old" is not a number)',
      rejected: [
        { index: 0, reasons: ['age: "old" is not a number'] },
        { index: 1, reasons: [expect.stringContaining('age: "3.5"')] },
      ],
      stats: { input: 2, output: 0, rejected: 2 },
      specialistContract: { status: 'refused' },
    });
  });

  it('never runs on a payload its schema refuses: an unknown type, an unknown option, a record that is not an object', async () => {
    const lane = defineLane('normalize-data', normalizeData);
    const context = { workspaceRoot: '/srv/workspace', runId: null };
    expect(await lane.run({ records: [{ a: 1 }], schema: { a: 'decimal' } }, context)).toMatchObject({
      success: false,
      error: 'payload refused: /schema/a does not match any accepted shape (see the payload schema in the task catalog)',
      problems: [{ path: '/schema/a', message: expect.any(String) }],
    });
    expect(await lane.run({ records: [{ a: 1 }], schema: { a: { type: 'number', round: true } } }, context)).toMatchObject({ success: false, error: expect.stringMatching(/^payload refused: \/schema\/a /) });
    expect(await lane.run({ records: ['not a record'], schema: { a: 'number' } }, context)).toMatchObject({ success: false, error: 'payload refused: /records/0 must be object' });
    expect(await lane.run({ records: [{ a: 1 }], schema: {} }, context)).toMatchObject({ success: false, error: 'payload refused: /schema must not have fewer than 1 properties' });
  });

  it('refuses contradicting field options, an unknown dedupe field and an empty batch', () => {
    expect(normalizeData({ records: [{ a: 1 }], schema: { a: { type: 'number', lowercase: true } } })).toMatchObject({
      success: false,
      error: 'schema field "a" asks for lowercase, which applies to string, email and url fields only',
    });
    expect(normalizeData({ records: [{ a: 1 }], schema: { a: 'number' }, dedupeBy: ['b'] })).toMatchObject({
      success: false,
      error: 'dedupeBy field "b" is not in the schema',
    });
    expect(normalizeData({ records: [], schema: { a: 'number' } })).toMatchObject({ success: false, error: expect.stringContaining('nothing to normalize') });
  });
});
