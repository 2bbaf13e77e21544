import { describe, expect, it } from 'vitest';
import { payloadFromAssignments, parseValue } from '../../src/cli/assignments.js';
import { closest } from '../../src/cli/suggest.js';
import { orch } from '../support/cli.js';

describe('orch key=value words', () => {
  it.each<[string[], Record<string, unknown>]>([
    [['limit=5'], { limit: 5 }],
    [['tags=["a","b"]'], { tags: ['a', 'b'] }],
    [['flag=true', 'none=null'], { flag: true, none: null }],
    [['title=hello world'], { title: 'hello world' }],
    [['scope=projects/app'], { scope: 'projects/app' }],
    [['query=a=b=c'], { query: 'a=b=c' }],
    [['quoted="5"'], { quoted: '5' }],
    [['empty='], { empty: '' }],
    [['name=Grüße 👋 日本'], { name: 'Grüße 👋 日本' }],
    [['constraints.maxFilesChanged=1', 'constraints.paths=["src"]'], { constraints: { maxFilesChanged: 1, paths: ['src'] } }],
    [['a.b.c={"d":1}'], { a: { b: { c: { d: 1 } } } }],
    [['version=1.0'], { version: 1 }],
    [['version=v1.0'], { version: 'v1.0' }],
  ])('%j -> %j', (words, payload) => {
    expect(payloadFromAssignments(words)).toEqual(payload);
  });

  it.each([
    [['novalue'], "'novalue' is not key=value"],
    [['=5'], "'=5' is not key=value"],
    [['a..b=1'], "'a..b' has an empty key segment"],
    [['a=1', 'a=2'], "'a' is given twice"],
    [['a=1', 'a.b=2'], "'a' is already a value; it cannot also hold 'b'"],
    [['__proto__.x=1'], "'__proto__' is not allowed as a key"],
  ])('refuses %j', (words, message) => {
    expect(() => payloadFromAssignments(words)).toThrow(message);
  });

  it('reads JSON only when the whole value is JSON', () => {
    expect(parseValue('[1, 2]')).toEqual([1, 2]);
    expect(parseValue('[1, 2')).toBe('[1, 2');
    expect(parseValue('{"a":')).toBe('{"a":');
  });
});

describe('orch usage errors: one clear line, exit code 2', () => {
  it.each([
    [['rnu'], "orch: unknown command 'rnu'. Did you mean 'run'? ('orch --help' lists them)"],
    [['approvels'], "orch: unknown command 'approvels'. Did you mean 'approvals'? ('orch --help' lists them)"],
    [
      ['frobnicate'],
      "orch: unknown command 'frobnicate'. Commands: run, watch, runs, show, logs, cancel, rerun, flow, queue, approvals, approve, reject, incidents, ack, schedules, catalog, health, login, logout, bridge.",
    ],
    [['run'], "orch: 'run' needs <type>"],
    [['run', 'secrity-audit'], "orch: unknown task type 'secrity-audit'. Did you mean 'security-audit'? ('orch catalog' lists them)"],
    [['run', 'heartbeat'], "orch: unknown task type 'heartbeat'. ('orch catalog' lists them)"],
    [['run', 'security-audit', 'scope'], "orch: 'scope' is not key=value"],
    [['run', 'security-audit', '--wacth'], "orch: unknown flag '--wacth' for 'run'. Did you mean '--watch'?"],
    [['run', 'security-audit', '--key'], "orch: '--key' needs a value (idempotencyKey)"],
    [['run', 'security-audit', '--payload-file', '/nonexistent/p.json'], 'orch: cannot read --payload-file /nonexistent/p.json: ENOENT'],
    [['watch'], "orch: 'watch' needs <runId>"],
    [['watch', 'a', 'b'], "orch: 'watch' does not take 'b'"],
    [['runs', '--status', 'faild'], "orch: unknown status 'faild'. Did you mean 'failed'? (one of waiting, pending, running, retrying, success, failed, cancelled, skipped)"],
    [['runs', '--limit', '0'], "orch: --limit must be a whole number above 0, not '0'"],
    [['runs', '--json=yes'], "orch: '--json' takes no value"],
    [['approve'], "orch: 'approve' needs <id>"],
    [['schedules', 'pasue', 'x'], "orch: unknown schedules action 'pasue'. Did you mean 'pause'? Actions: list, add, pause, resume, rm."],
    [['schedules', 'zap'], "orch: unknown schedules action 'zap'. Actions: list, add, pause, resume, rm."],
    [['bridge', 'start'], "orch: unknown bridge action 'start'; the one action is 'serve'"],
    [['runs', '--id', ''], "orch: '--id' needs the start of a run id"],
    [['schedules', 'add', 'security-audit'], "orch: 'schedules add' needs --cron \"<expr>\""],
    [['logs', 'r1', '--folow'], "orch: unknown flag '--folow' for 'logs'. Did you mean '--follow'?"],
    [['show', 'r1'], "orch: no service URL: pass --url, set ORCH_URL, or run 'orch login'"],
  ])('%j', async (argv, line) => {
    const result = await orch(argv);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`${line}\n`);
  });

  it('prints help for every verb with exit 0, and the command list without a verb with exit 2', async () => {
    for (const verb of ['run', 'watch', 'runs', 'show', 'logs', 'cancel', 'rerun', 'approvals', 'approve', 'reject', 'incidents', 'ack', 'schedules', 'catalog', 'health', 'login', 'logout']) {
      const result = await orch([verb, '--help']);
      expect(result.code, verb).toBe(0);
      expect(result.stdout.startsWith(`orch ${verb}`), verb).toBe(true);
      expect(result.stdout).toContain('--api-key <key>');
    }
    const bare = await orch([]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toContain('Commands:');
  });

  it('suggests only close words', () => {
    expect(closest('sho', ['show', 'runs'])).toBe('show');
    expect(closest('xyzzy', ['show', 'runs'])).toBeNull();
  });
});
