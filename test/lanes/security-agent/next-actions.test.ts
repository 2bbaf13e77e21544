import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FAMILIES_BY_TYPE, securityAudit, type AuditType, type SecurityAuditSuccess } from '../../../agents/security-agent/audit.js';

// Planted values, assembled so this test file does not itself read as a committed secret.
const AWS_KEY_ID = ['AKIA', 'Z7QW3XK2', 'M9TR4LPB'].join('');

/** Fixture projects, each a folder of the workspace with what an audit of it should find. */
const PROJECTS: Record<string, Record<string, string>> = {
  clean: {
    'package.json': JSON.stringify({ name: 'clean', version: '1.0.0', dependencies: { express: '4.19.2' } }),
    'src/index.js': `export const add = (a, b) => a + b;\n`,
  },
  'one-secret': {
    'package.json': JSON.stringify({ name: 'one-secret', version: '1.0.0' }),
    'src/aws.js': `export const region = 'eu-west-1';\nexport const keyId = '${AWS_KEY_ID}';\n`,
  },
  'code-and-deps': {
    'package.json': JSON.stringify({ name: 'code-and-deps', version: '1.0.0', dependencies: { leftpad: '*' } }, null, 2),
    'src/run.js': `export function run(req) {\n  return eval(req.query.expr);\n}\n`,
  },
};

const roots: string[] = [];
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

function workspace(): string {
  const root = mkdtempSync(join(tmpdir(), 'security-advice-'));
  roots.push(root);
  for (const [project, files] of Object.entries(PROJECTS)) {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(root, project, path)), { recursive: true });
      writeFileSync(join(root, project, path), content);
    }
  }
  return root;
}

const root = workspace();

function audit(type: AuditType, scope: string): SecurityAuditSuccess {
  const result = securityAudit({ type, scope }, { workspaceRoot: root, runId: null });
  if (!result.success) throw new Error(result.error);
  return result;
}

/**
 * What every piece of advice must be: about something this audit found (a finding's rule at its
 * place), with one action for each rule family that found something, and never a recommendation
 * to run the audit type that just ran.
 */
function expectSpecificAdvice(result: SecurityAuditSuccess): void {
  const places = result.findings.map((f) => (f.line ? `${f.file}:${f.line}` : f.file));
  for (const action of result.recommendedNextActions) {
    expect(places.some((place) => action.includes(place)), `"${action}" names no finding`).toBe(true);
    expect(result.findings.some((f) => action.includes(f.rule)), `"${action}" names no rule that found something`).toBe(true);
    expect(action).not.toMatch(new RegExp(`type\\W+${result.type}\\b`));
    expect(action).not.toMatch(/\b(run|audit) (it |them )?again\b/i);
  }
  for (const finding of result.findings) {
    expect(result.recommendedNextActions.some((a) => a.includes(finding.rule)), `finding ${finding.rule} has no action`).toBe(true);
  }
}

describe('security-audit advice against fixtures', () => {
  it('a clean scan advises nothing, and never to scan again', () => {
    const result = audit('scan', 'clean');
    expect(result.rulesRun).toEqual(FAMILIES_BY_TYPE.scan);
    expect(result.findings).toEqual([]);
    expect(result.recommendedNextActions).toEqual([]);
  });

  it('one committed key gets one action naming its rule and line, and nothing about families that found nothing', () => {
    const result = audit('scan', 'one-secret');
    expect(result.findings.map((f) => f.rule)).toEqual(['aws-access-key-id']);
    expect(result.recommendedNextActions).toEqual([
      'Rotate the credential found (aws-access-key-id in one-secret/src/aws.js:2) first: a committed secret stays in git history; then move it to the environment or a secret store and purge it from the repository.',
    ]);
    expectSpecificAdvice(result);
  });

  it('a code audit advises on the dangerous code it found, and not on the dependencies it did not read', () => {
    const result = audit('code', 'code-and-deps');
    expect(result.findings.map((f) => f.rule)).toEqual(['eval-call']);
    expect(result.recommendedNextActions).toHaveLength(1);
    expect(result.recommendedNextActions[0]).toMatch(/^Replace the string-built code found \(eval-call in code-and-deps\/src\/run\.js:2\)/);
    expectSpecificAdvice(result);
  });

  it('a scan with findings of several families gets one action per family, then the top of the ranking', () => {
    const result = audit('scan', 'code-and-deps');
    expect(new Set(result.findings.map((f) => f.rule))).toEqual(new Set(['eval-call', 'dependency-unpinned']));
    expect(result.recommendedNextActions).toHaveLength(3);
    expect(result.recommendedNextActions[0]).toContain('eval-call in code-and-deps/src/run.js:2');
    expect(result.recommendedNextActions[1]).toMatch(/^Pin the dependency declarations found \(dependency-unpinned in code-and-deps\/package\.json:\d+\)/);
    expect(result.recommendedNextActions[2]).toMatch(/^Work through exploitabilityRanking from the top: #1 is eval-call in code-and-deps\/src\/run\.js:2/);
    expectSpecificAdvice(result);
  });
});
