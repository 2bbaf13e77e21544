import { describe, expect, it } from 'vitest';
import { isoMs } from '../../src/store/iso-ms.js';

describe('isoMs (the claim order reads instants with it)', () => {
  it('gives what Date.parse gives for instants written by toISOString, leap days and era edges included', () => {
    const samples = [0, 1, -1, 951_782_400_000, 951_868_800_000, 4_107_542_400_000, -62_135_596_800_000, 253_402_300_799_999, Date.parse('2026-03-01T12:00:00.000Z')];
    // A fixed spread of instants between year 0 and 9999 (deterministic: a linear congruence, not Math.random).
    let x = 12_345;
    for (let i = 0; i < 5000; i++) {
      x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
      samples.push(-62_167_219_200_000 + Math.floor((x / 2_147_483_648) * 315_537_897_599_999));
    }
    for (const ms of samples) {
      const text = new Date(ms).toISOString();
      if (text.length !== 24) continue;
      expect(isoMs(text), text).toBe(Date.parse(text));
    }
  });

  it('leaves every other text to Date.parse: other forms, impossible dates, not a time', () => {
    for (const text of [
      '2026-02-29T00:00:00.000Z',
      '2024-02-29T00:00:00.000Z',
      '2026-04-31T10:00:00.000Z',
      '2026-13-01T10:00:00.000Z',
      '2026-01-01T24:00:00.000Z',
      '2026-01-01T10:00:00Z',
      '2026-01-01T10:00:00.000+01:00',
      '2026-01-01',
      '2026-0a-01T10:00:00.000Z',
      '2026-01-01T1a:00:00.000Z',
      '2026-01-01T10:0b:00.000Z',
      '2026-01-01T10:00:0c.000Z',
      '2026-01-01T10:00:00.0d0Z',
      'not a time at all, really',
      '',
    ]) {
      expect(Object.is(isoMs(text), Date.parse(text)), text).toBe(true);
    }
  });
});
