import { describe, expect, it } from 'vitest';
import { when, type Output } from '../../src/cli/output.js';
import { table, type Column } from '../../src/cli/table.js';

const output = (width: number | null): Output => ({ out: () => undefined, err: () => undefined, progress: () => undefined, color: false, json: false, width });

interface Row {
  id: string;
  state: string;
  at: string;
  note: string;
}

const COLUMNS: Column<Row>[] = [
  { header: 'id', value: (r) => r.id, fit: 'wrap' },
  { header: 'state', value: (r) => r.state },
  { header: 'at', value: (r) => r.at, fit: 'drop' },
  { header: 'note', value: (r) => r.note, fit: 'cut' },
];

const ROWS: Row[] = [
  { id: '7279f442-1b2c-4d5e-8f90-123456789abc', state: 'awaiting approval', at: '2026-03-01 10:00:00 UTC', note: 'Reads every file in scope and ranks what it finds by exploitability.' },
  { id: 'schedule:nightly:2026-03-01T02:00:00.000Z', state: 'success', at: '2026-03-01 02:00:00 UTC', note: 'short' },
];

const lines = (text: string) => text.split('\n');
const widest = (text: string) => Math.max(...lines(text).map((l) => [...l].length));

describe('tables fit the terminal and keep ids whole', () => {
  it('prints every cell whole when there is no width limit (a pipe)', () => {
    const text = table(output(null), ROWS, COLUMNS, 'none');
    for (const row of ROWS) for (const value of Object.values(row)) expect(text).toContain(value);
  });

  it('cuts free text first, with an ellipsis, and keeps the rest', () => {
    const text = table(output(130), ROWS, COLUMNS, 'none');
    expect(widest(text)).toBeLessThanOrEqual(130);
    expect(text).toContain('Reads every file in scope and ranks what');
    expect(text).not.toContain(ROWS[0]!.note);
    expect(text).toContain('…');
    for (const row of ROWS) expect(text).toContain(row.id);
    expect(text).toContain(ROWS[0]!.at);
  });

  it('drops a minor column rather than cut free text below a readable width', () => {
    const text = table(output(110), ROWS, COLUMNS, 'none');
    expect(widest(text)).toBeLessThanOrEqual(110);
    expect(lines(text)[0]).toMatch(/^ID\s+STATE\s+NOTE$/);
    expect(text).toContain('Reads every file in scope and ranks what');
  });

  it('then drops minor columns, then free text, before an id is touched', () => {
    const text = table(output(64), ROWS, COLUMNS, 'none');
    expect(widest(text)).toBeLessThanOrEqual(64);
    expect(lines(text)[0]).toMatch(/^ID\s+STATE$/);
    for (const row of ROWS) expect(text).toContain(row.id);
  });

  it('wraps an id on a narrow terminal: no character is lost', () => {
    const text = table(output(36), ROWS, COLUMNS, 'none');
    expect(widest(text)).toBeLessThanOrEqual(36);
    // The id column is the first: its pieces, line after line, give the whole id back.
    const idWidth = lines(text)[0]!.indexOf('STATE') - 2;
    const pieces = lines(text)
      .slice(1)
      .map((l) => l.slice(0, idWidth).trim());
    expect(pieces.join('')).toBe(ROWS.map((r) => r.id).join(''));
    expect(text).toContain('awaiting approval');
  });

  it('says the zone of every time it shows', () => {
    expect(when('2026-03-01T12:30:05+02:00')).toBe('2026-03-01 10:30:05 UTC');
    expect(when(null)).toBe('-');
  });
});
