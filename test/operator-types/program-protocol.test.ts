import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandProblem } from '../../src/operator-types/command-check.js';
import { captureLastLine } from '../../src/operator-types/program-output.js';
import { answerOf, readProgramResult } from '../../src/operator-types/program-result.js';
import { programPayload } from '../../src/operator-types/run-program.js';
import { bubblewrapArgs } from '../../src/worker-sdk/project-command.js';
import { tempDir } from '../support/config.js';

describe('the program protocol', () => {
  it('keeps only the last non-empty line of stdout, and stops a flood once', () => {
    let stopped = 0;
    const out = captureLastLine(() => (stopped += 1), 64, 16);
    out.push(Buffer.from('progress 1\n{"a":'));
    out.push(Buffer.from('1}\n\n'));
    out.end();
    expect(out.lastLine()).toBe('{"a":1}');
    out.push(Buffer.alloc(100, 97));
    out.push(Buffer.alloc(100, 97));
    expect([out.overflowed, stopped]).toEqual([true, 1]);
    const long = captureLastLine(() => undefined, 1000, 16);
    long.push(Buffer.from(`${'x'.repeat(40)}\n`));
    long.end();
    expect([long.lastLine(), long.lineTooLong]).toEqual([null, true]);
  });

  it('reads the result file before stdout, and says what is missing', () => {
    const dir = tempDir();
    const file = join(dir, 'result.json');
    expect(readProgramResult(file, '{"from":"stdout"}', false)).toEqual({ result: { from: 'stdout' } });
    writeFileSync(file, '{"from":"file"}\n');
    expect(readProgramResult(file, '{"from":"stdout"}', false)).toEqual({ result: { from: 'file' } });
    writeFileSync(file, '[1]');
    expect(readProgramResult(file, null, false)).toEqual({ problem: 'the result file (ORCH_RESULT_FILE) is JSON but not an object' });
    expect(readProgramResult(join(dir, 'none'), null, false)).toEqual({ problem: expect.stringContaining('printed no JSON result') });
  });

  it('adds success to a result without it and keeps a failure’s own reason', () => {
    expect(answerOf({ n: 1 })).toEqual({ success: true, n: 1 });
    expect(answerOf({ success: false })).toEqual({ success: false, error: 'the program reported "success": false' });
    expect(answerOf({ success: false, error: 'no rows' })).toEqual({ success: false, error: 'no rows' });
  });

  it('gives the program its payload without the service fields', () => {
    expect(programPayload({ a: 1, idempotencyKey: 'k', requiresApproval: true, __taskType: {}, __sandbox: {} })).toEqual({ a: 1 });
  });

  it('names a missing, non-executable or unknown command', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'plain.sh'), 'echo');
    writeFileSync(join(dir, 'ok.sh'), 'echo');
    chmodSync(join(dir, 'ok.sh'), 0o755);
    expect(commandProblem('./ok.sh', dir, '')).toBeNull();
    expect(commandProblem('./plain.sh', dir, '')).toMatch(/is not executable/);
    expect(commandProblem('./gone.sh', dir, '')).toMatch(/does not exist in the type's folder/);
    expect(commandProblem('ok.sh', '/', dir)).toBeNull();
    expect(commandProblem('gone', dir, dir)).toMatch(/was not found on PATH/);
  });

  it('sandboxes a program with its folder read-only, its scratch writable and its scopes read-only', () => {
    const args = bubblewrapArgs('sh', ['run.sh'], { projectDir: '/types/t', projectReadOnly: true, writableDirs: ['/tmp/attempt'], readOnlyPaths: ['/ws/docs'] });
    const at = (flag: string, path: string) => args.findIndex((a, i) => a === flag && args[i + 1] === path);
    expect(at('--ro-bind', '/types/t')).toBeGreaterThan(-1);
    expect(at('--bind', '/types/t')).toBe(-1);
    expect(at('--bind', '/tmp/attempt')).toBeGreaterThan(at('--tmpfs', '/tmp'));
    expect(at('--ro-bind', '/ws/docs')).toBeGreaterThan(-1);
    expect(args).not.toContain('--share-net');
  });
});
