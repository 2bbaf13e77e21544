import { describe, expect, it } from 'vitest';
import { boundLine, utf8Prefix } from '../../src/runlogs/bound-line.js';
import { BoundedLines, lineCost } from '../../src/runlogs/bounded-lines.js';
import { DEFAULT_RUN_LOG_LIMITS } from '../../src/runlogs/limits.js';
import { LineSplitter } from '../../src/runlogs/line-splitter.js';

const line = (text: string) => ({ at: '2026-01-01T00:00:00.000Z', stream: 'stderr' as const, line: text });

describe('the bounds of one attempt', () => {
  it('keeps the last 2,000 lines when they fit in 256 KiB, counting what left the front', () => {
    const { maxLines, maxBytes } = DEFAULT_RUN_LOG_LIMITS;
    const kept = new BoundedLines(maxLines, maxBytes);
    for (let i = 0; i < 2_500; i++) kept.push(line(`line ${i}`));
    expect(kept.length).toBe(2_000);
    expect(kept.truncated).toBe(500);
    expect(kept.lines()[0]!.line).toBe('line 500');
    expect(kept.lines().at(-1)!.line).toBe('line 2499');
  });

  it('keeps the last 256 KiB when fewer than 2,000 lines already fill it', () => {
    const { maxLines, maxBytes } = DEFAULT_RUN_LOG_LIMITS;
    const kept = new BoundedLines(maxLines, maxBytes);
    // 1,023 bytes of text + the line break: 256 lines fill 256 KiB exactly.
    const text = (i: number) => `${String(i).padStart(5, '0')}${'x'.repeat(1_018)}`;
    for (let i = 0; i < 600; i++) kept.push(line(text(i)));
    expect(lineCost(text(0))).toBe(1_024);
    expect(kept.length).toBe(256);
    expect(kept.bytes).toBe(256 * 1024);
    expect(kept.truncated).toBe(600 - 256);
    expect(kept.lines()[0]!.line.startsWith('00344')).toBe(true);
    expect(kept.lines().at(-1)!.line.startsWith('00599')).toBe(true);
  });

  it('counts bytes as UTF-8, not as characters', () => {
    const kept = new BoundedLines(100, 40);
    for (let i = 0; i < 10; i++) kept.push(line('ééééé')); // 10 bytes + 1 each
    expect(kept.length).toBe(3);
    expect(kept.bytes).toBe(33);
    expect(kept.truncated).toBe(7);
  });

  it('stays correct across many evictions (the queue compacts itself)', () => {
    const kept = new BoundedLines(10, 1_000_000);
    for (let i = 0; i < 10_000; i++) kept.push(line(String(i)));
    expect(kept.lines().map((l) => l.line)).toEqual(Array.from({ length: 10 }, (_, i) => String(9_990 + i)));
    expect(kept.truncated).toBe(9_990);
  });

  it('cuts a long line at a character boundary and says how much is not shown', () => {
    const long = `${'é'.repeat(3_000)}`; // 6,000 bytes
    const bounded = boundLine(long, 4_096);
    expect(Buffer.byteLength(bounded)).toBeLessThanOrEqual(4_096);
    expect(bounded).toMatch(/^é+…\[\+\d+ bytes\]$/);
    const shown = Buffer.byteLength(bounded.slice(0, bounded.indexOf('…')));
    expect(bounded).toContain(`[+${6_000 - shown} bytes]`);
    expect(boundLine('short', 4_096)).toBe('short');
    expect(boundLine('short', 4_096, 100)).toBe('short…[+100 bytes]');
    expect(utf8Prefix('aé', 2)).toBe('a');
  });
});

describe('splitting a worker stderr into lines', () => {
  function split(maxPending = 64) {
    const lines: Array<[string, number]> = [];
    const splitter = new LineSplitter(maxPending, (text, skipped) => lines.push([text, skipped]));
    return { splitter, lines };
  }

  it('joins lines and characters split across chunks, and ends an unfinished last line at the end', () => {
    const { splitter, lines } = split();
    const bytes = Buffer.from('first li€ne\r\nsecond\nthird');
    for (const b of bytes) splitter.write(Buffer.from([b]));
    expect(lines).toEqual([
      ['first li€ne', 0],
      ['second', 0],
    ]);
    splitter.end();
    expect(lines.at(-1)).toEqual(['third', 0]);
  });

  it('holds no more than its bound of an unfinished line and counts what it skipped', () => {
    const { splitter, lines } = split(10);
    splitter.write('a'.repeat(25));
    splitter.write('b'.repeat(25));
    splitter.write('\nnext\n');
    expect(lines).toEqual([
      ['a'.repeat(10), 40],
      ['next', 0],
    ]);
  });
});
