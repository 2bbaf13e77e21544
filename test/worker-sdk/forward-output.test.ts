import { describe, expect, it } from 'vitest';
import { forwardedLine } from '../../src/domain/run-log-line.js';
import { forwardLines } from '../../src/worker-sdk/forward-output.js';

describe("a project command's output forwarded line by line with its stream", () => {
  it('marks each whole line, joins lines split across chunks and forwards an unfinished last line at the end', () => {
    const written: string[] = [];
    const out = forwardLines('stdout', (text) => written.push(text));
    out.push(Buffer.from('first line\nsec'));
    out.push(Buffer.from('ond line\r\nthird'));
    expect(written.map((w) => forwardedLine(w.slice(0, -1)))).toEqual([
      { stream: 'stdout', line: 'first line' },
      { stream: 'stdout', line: 'second line' },
    ]);
    out.end();
    expect(forwardedLine(written[2]!.slice(0, -1))).toEqual({ stream: 'stdout', line: 'third' });
  });

  it('keeps stderr apart, and reads an unmarked line (the worker’s own) as stderr', () => {
    const written: string[] = [];
    forwardLines('stderr', (text) => written.push(text)).push(Buffer.from('warming up\n'));
    expect(forwardedLine(written[0]!.slice(0, -1))).toEqual({ stream: 'stderr', line: 'warming up' });
    expect(forwardedLine('worker: starting')).toEqual({ stream: 'stderr', line: 'worker: starting' });
  });

  it('forwards a line that never ends in bounded pieces instead of holding it', () => {
    const written: string[] = [];
    const out = forwardLines('stdout', (text) => written.push(text));
    out.push(Buffer.from('x'.repeat(40 * 1024)));
    expect(written.length).toBeGreaterThan(0);
  });
});
