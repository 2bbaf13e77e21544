import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { categoryOf } from '../../../agents/compliance-agent/licence-kinds.js';
import { identifyLicenceText } from '../../../agents/compliance-agent/licence-text.js';
import { complianceReview, type ComplianceSuccess } from '../../../agents/compliance-agent/review.js';
import { APACHE_TEXT, BSD3_TEXT, GPL3_TEXT, ISC_TEXT, MIT_TEXT } from '../../support/licence-texts.js';

function write(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

const manifest = (fields: Record<string, unknown>) => JSON.stringify({ name: 'x', version: '1.0.0', ...fields }, null, 2);

describe('licence identification', () => {
  it('names the SPDX id of common licence texts', () => {
    expect(identifyLicenceText(MIT_TEXT)).toBe('MIT');
    expect(identifyLicenceText(GPL3_TEXT)).toBe('GPL-3.0-or-later');
    expect(identifyLicenceText(APACHE_TEXT)).toBe('Apache-2.0');
    expect(identifyLicenceText(ISC_TEXT)).toBe('ISC');
    expect(identifyLicenceText(BSD3_TEXT)).toBe('BSD-3-Clause');
    expect(identifyLicenceText('All rights reserved. Do not copy.')).toBeNull();
  });

  it('reads OR as a choice and AND as a combination', () => {
    expect(categoryOf('(MIT OR GPL-3.0-only)')).toBe('permissive');
    expect(categoryOf('MIT AND GPL-3.0-only')).toBe('strong-copyleft');
    expect(categoryOf('LGPL-2.1-or-later')).toBe('weak-copyleft');
    expect(categoryOf('UNLICENSED')).toBe('proprietary');
    expect(categoryOf('Frobnicate-1.0')).toBe('unknown');
  });
});

describe('compliance-review lane', () => {
  let root: string;
  const review = (scope: string) => complianceReview({ scope }, { workspaceRoot: root, runId: null });

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'compliance-review-'));
    write(root, {
      // MIT project with a GPL runtime dependency, an Apache one, and one not installed.
      'ledger/LICENSE': MIT_TEXT,
      'ledger/README.md': '# Ledger\n',
      'ledger/package.json': manifest({
        license: 'MIT',
        dependencies: { 'gpl-charts': '^2.0.0', 'apache-http': '^1.0.0', 'left-pad': '^1.3.0', '@acme/rounding': '^0.2.0' },
        devDependencies: { 'lgpl-lint': '^1.0.0' },
      }),
      'ledger/node_modules/gpl-charts/package.json': manifest({ name: 'gpl-charts', version: '2.1.0', license: 'GPL-3.0-only' }),
      'ledger/node_modules/apache-http/package.json': manifest({ name: 'apache-http', version: '1.4.2', license: 'Apache-2.0' }),
      // No license field: the licence file's text decides.
      'ledger/node_modules/@acme/rounding/package.json': manifest({ name: '@acme/rounding', version: '0.2.1' }),
      'ledger/node_modules/@acme/rounding/LICENSE.txt': ISC_TEXT,
      'ledger/node_modules/lgpl-lint/package.json': manifest({ name: 'lgpl-lint', version: '1.0.0', licenses: [{ type: 'LGPL-2.1-only' }] }),
      // A clean project: ISC by text only, permissive dependencies, README.
      'clean/LICENSE': ISC_TEXT,
      'clean/README': 'Clean.\n',
      'clean/package.json': manifest({ dependencies: { tiny: '1.0.0' } }),
      'clean/node_modules/tiny/package.json': manifest({ name: 'tiny', version: '1.0.0', license: '(MIT OR Apache-2.0)' }),
      'clean/NOTICE': 'Includes tiny (Apache-2.0).\n',
      // No licence at all.
      'bare/package.json': manifest({}),
      'bare/index.js': 'export {};\n',
      'inconsistent/LICENSE': BSD3_TEXT,
      'inconsistent/package.json': manifest({ license: 'MIT', private: true }),
      'inconsistent/README.md': 'x\n',
    });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('blocks an MIT project that ships a GPL dependency, naming it', () => {
    const result = review('ledger') as ComplianceSuccess;
    expect(result.success).toBe(true);
    expect(result.posture).toBe('blocked');
    expect(result.licence).toMatchObject({ spdx: 'MIT', category: 'permissive', identifiedByText: ['MIT'], sources: ['LICENSE (text)', 'package.json license'] });
    const check = (name: string) => result.checks.find((c) => c.check === name);
    expect(check('copyleft-dependencies')).toMatchObject({ status: 'fail', evidence: expect.stringContaining('gpl-charts (GPL-3.0-only)') });
    expect(check('licence-consistent')?.status).toBe('pass');
    expect(check('notice-file')).toMatchObject({ status: 'warn', evidence: expect.stringContaining('apache-http') });
    expect(check('dependency-licences-known')).toMatchObject({ status: 'warn', evidence: expect.stringContaining('left-pad (not installed') });
    expect(check('readme-present')?.status).toBe('pass');
  });

  it('reports each dependency licence with its source, and never invents one', () => {
    const result = review('ledger') as ComplianceSuccess;
    const byName = Object.fromEntries(result.dependencies.map((d) => [d.name, d]));
    expect(byName['gpl-charts']).toMatchObject({ licence: 'GPL-3.0-only', source: 'package.json', category: 'strong-copyleft', installedVersion: '2.1.0', section: 'dependencies' });
    expect(byName['@acme/rounding']).toMatchObject({ licence: 'ISC', source: 'licence-file', category: 'permissive' });
    expect(byName['left-pad']).toMatchObject({ licence: null, source: null, category: 'unknown', installedVersion: null });
    expect(byName['lgpl-lint']).toMatchObject({ licence: 'LGPL-2.1-only', section: 'devDependencies', category: 'weak-copyleft' });
  });

  it('clears a permissive project with known permissive dependencies', () => {
    const result = review('clean') as ComplianceSuccess;
    expect(result.licence).toMatchObject({ spdx: 'ISC', sources: ['LICENSE (text)'], declared: null });
    expect(result.posture).toBe('clear');
    expect(result.checks.find((c) => c.check === 'notice-file')?.status).toBe('pass');
  });

  it('names a missing licence and never reports clear for it', () => {
    const result = review('bare') as ComplianceSuccess;
    expect(result.posture).toBe('blocked');
    expect(result.licence.spdx).toBeNull();
    expect(result.checks[0]).toMatchObject({ check: 'licence-present', status: 'fail', evidence: expect.stringMatching(/no LICENSE\/COPYING file/) });
    expect(result.checks.find((c) => c.check === 'readme-present')?.status).toBe('warn');
  });

  it('watches a private project whose manifest and licence file disagree', () => {
    const result = review('inconsistent') as ComplianceSuccess;
    expect(result.posture).toBe('watching');
    expect(result.checks.find((c) => c.check === 'licence-consistent')).toMatchObject({ status: 'warn', evidence: expect.stringContaining('BSD-3-Clause') });
  });

  it('refuses a scope outside the workspace, a missing scope and a file scope', () => {
    for (const [scope, reason] of [
      ['../outside', /escapes the workspace root/],
      ['nowhere', /does not exist/],
      ['bare/index.js', /is a file/],
    ] as const) {
      const result = review(scope);
      expect(result.success).toBe(false);
      expect(result.specialistContract).toMatchObject({ status: 'refused', refusalReason: expect.stringMatching(reason) });
    }
  });
});
