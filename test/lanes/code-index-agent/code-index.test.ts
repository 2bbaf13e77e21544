import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeIndex, type CodeIndexSuccess } from '../../../agents/code-index-agent/code-index.js';
import type { LanePayload } from '../../../src/worker-sdk/lane-definition.js';
import { declaredNames, findExports } from '../../../agents/code-index-agent/exports.js';
import { findImports } from '../../../agents/code-index-agent/imports.js';
import { stripSource } from '../../../agents/code-index-agent/strip-source.js';

const exportsOf = (source: string) => findExports(stripSource(source).code).map((s) => ({ name: s.name, kind: s.kind, ...(s.from ? { from: s.from } : {}), ...(s.target ? { target: s.target } : {}) }));

describe('export and import scanning', () => {
  it('reads every export form', () => {
    const source = [
      'export function total(items: Item[]): number { return 0; }',
      'export async function load() {}',
      'export class Ledger {}',
      'export const TAX = 0.2, ROUNDING: Map<string, number> = new Map(), { a, b: renamed } = pair;',
      'export type Currency = "EUR" | "USD";',
      'export interface Item { price: number }',
      'export enum Status { Open, Closed }',
      'export default class Store {}',
      'const helper = () => 1;',
      'export { helper, helper as assist };',
      "export * from './money.js';",
      "export * as fx from './fx.js';",
      "export { round, floor as roundDown } from './math.js';",
    ].join('\n');
    expect(exportsOf(source)).toEqual([
      { name: 'total', kind: 'function' },
      { name: 'load', kind: 'function' },
      { name: 'Ledger', kind: 'class' },
      { name: 'TAX', kind: 'const' },
      { name: 'ROUNDING', kind: 'const' },
      { name: 'a', kind: 'const' },
      { name: 'renamed', kind: 'const' },
      { name: 'Currency', kind: 'type' },
      { name: 'Item', kind: 'interface' },
      { name: 'Status', kind: 'enum' },
      { name: 'default', kind: 'default', target: 'class Store' },
      { name: 'helper', kind: 'const' },
      { name: 'assist', kind: 'const' },
      { name: '*', kind: 're-export-all', from: './money.js' },
      { name: 'fx', kind: 're-export', from: './fx.js' },
      { name: 'round', kind: 're-export', from: './math.js' },
      { name: 'roundDown', kind: 're-export', from: './math.js' },
    ]);
  });

  it('ignores exports and imports inside comments, templates and regular expressions', () => {
    const source = [
      '// export function commented() {}',
      '/* export class Hidden {}',
      "import { nope } from 'nowhere'; */",
      'const doc = `',
      'export const inTemplate = 1;',
      '`;',
      "const pattern = /import x from 'y'/;",
      'export const shown = doc.length / 2;',
    ].join('\n');
    expect(exportsOf(source)).toEqual([{ name: 'shown', kind: 'const' }]);
    expect(findImports(stripSource(source).code)).toEqual([]);
  });

  it('splits declarators at top-level commas only', () => {
    expect(declaredNames('a = f(1, 2), b: Record<string, [number, number]> = {}, [c, , ...d] = list')).toEqual(['a', 'b', 'c', 'd']);
    expect(declaredNames('handler = (x: number, y: number): number => x + y, other = 1')).toEqual(['handler', 'other']);
  });

  it('finds static, multi-line, side-effect, dynamic and require imports with their lines', () => {
    const source = "import fs from 'node:fs';\nimport {\n  a,\n  b,\n} from './ab.js';\nimport './polyfill';\nconst lazy = await import('./lazy.js');\nconst cjs = require('lodash/fp');\nexport { c } from '../c';\n";
    expect(findImports(stripSource(source).code)).toEqual([
      { specifier: 'node:fs', kind: 'static', line: 1 },
      { specifier: './ab.js', kind: 'static', line: 5 },
      { specifier: './polyfill', kind: 'side-effect', line: 6 },
      { specifier: './lazy.js', kind: 'dynamic', line: 7 },
      { specifier: 'lodash/fp', kind: 'require', line: 8 },
      { specifier: '../c', kind: 're-export', line: 9 },
    ]);
  });
});

describe('code-index lane', () => {
  let root: string;
  const run = (payload: LanePayload<'code-index'>) => codeIndex(payload, { workspaceRoot: root, runId: null });
  const write = (files: Record<string, string>) => {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content);
    }
  };

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'code-index-'));
    write({
      'shop/src/money.ts': "export type Cents = number;\nexport function toCents(euros: number): Cents { return Math.round(euros * 100); }\n",
      'shop/src/cart.ts': "import { toCents, type Cents } from './money.js';\nimport { z } from 'zod';\nexport class Cart { total(): Cents { return toCents(1); } }\n",
      'shop/src/index.ts': "export * from './cart.js';\nexport { toCents } from './money.js';\nexport default function main() {}\n",
      'shop/src/ui/Badge.tsx': "import React from 'react';\nimport { Cart } from '../cart';\nexport const Badge = () => <span>Don't panic</span>;\n",
      'shop/legacy/report.cjs': "const path = require('node:path');\nconst cart = require('../src/cart.ts');\nexports.report = () => path.sep;\n",
      'shop/src/notes.md': 'export function notSource() {}\n',
      'shop/node_modules/zod/index.js': 'export const z = {};\n',
      'broken/src/a.ts': "import { gone } from './missing.js';\nexport const label = 'unterminated;\n",
      'empty/readme.txt': 'no sources here\n',
    });
    const past = new Date('2024-01-01T00:00:00Z');
    for (const file of ['money.ts', 'cart.ts', 'index.ts', 'ui/Badge.tsx']) utimesSync(join(root, 'shop/src', file), past, past);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('indexes every source file with its symbols, and the edges between files', () => {
    const result = run({ scope: 'shop' }) as CodeIndexSuccess;
    expect(result.success).toBe(true);
    expect(result.posture).toBe('ready');
    expect(result.files.map((f) => f.path)).toEqual(['shop/legacy/report.cjs', 'shop/src/cart.ts', 'shop/src/index.ts', 'shop/src/money.ts', 'shop/src/ui/Badge.tsx']);
    const file = (path: string) => result.files.find((f) => f.path === path)!;
    expect(file('shop/src/money.ts').symbols).toEqual([
      { name: 'Cents', kind: 'type', line: 1 },
      { name: 'toCents', kind: 'function', line: 2 },
    ]);
    expect(file('shop/src/index.ts').symbols.map((s) => [s.name, s.kind])).toEqual([
      ['*', 're-export-all'],
      ['toCents', 're-export'],
      ['default', 'default'],
    ]);
    expect(file('shop/src/ui/Badge.tsx').symbols).toEqual([{ name: 'Badge', kind: 'const', line: 3 }]);
    expect(file('shop/legacy/report.cjs').symbols).toEqual([{ name: 'report', kind: 'commonjs', line: 3 }]);
    expect(result.edges).toEqual([
      { from: 'shop/legacy/report.cjs', to: 'shop/src/cart.ts' },
      { from: 'shop/src/cart.ts', to: 'shop/src/money.ts' },
      { from: 'shop/src/index.ts', to: 'shop/src/cart.ts' },
      { from: 'shop/src/index.ts', to: 'shop/src/money.ts' },
      { from: 'shop/src/ui/Badge.tsx', to: 'shop/src/cart.ts' },
    ]);
    expect(result.externalImports).toEqual([
      { package: 'node:path', builtin: true, importedBy: ['shop/legacy/report.cjs'] },
      { package: 'react', builtin: false, importedBy: ['shop/src/ui/Badge.tsx'] },
      { package: 'zod', builtin: false, importedBy: ['shop/src/cart.ts'] },
    ]);
    expect(result.stats).toMatchObject({ files: 5, typescript: 4, javascript: 1, edges: 5, externalPackages: 3, unresolvedImports: 0 });
  });

  it('asks for a refresh when files changed since the previous index', () => {
    const result = run({ scope: 'shop', previousIndexAt: '2024-06-01T00:00:00Z' }) as CodeIndexSuccess;
    expect(result.posture).toBe('refresh');
    expect(result.changedSince).toEqual(['shop/legacy/report.cjs']);
    expect(result.postureReasons[0]).toMatch(/1 file changed since the previous index/);
    expect((run({ scope: 'shop', previousIndexAt: result.indexedAt }) as CodeIndexSuccess).posture).toBe('ready');
  });

  it('asks for a refresh when a file does not parse or an import does not resolve', () => {
    const result = run({ scope: 'broken' }) as CodeIndexSuccess;
    expect(result.posture).toBe('refresh');
    expect(result.problems).toEqual([
      { file: 'broken/src/a.ts', problem: 'unterminated string on line 2' },
      { file: 'broken/src/a.ts', problem: 'line 1: import "./missing.js" does not resolve (no such file)' },
    ]);
  });

  it('is blocked, failing the run, when the scope is missing, outside, empty of sources or the previous time is not a date', () => {
    for (const [payload, reason] of [
      [{ scope: 'nowhere' }, /does not exist/],
      [{ scope: '../../etc' }, /escapes the workspace root/],
      [{ scope: 'empty' }, /holds no JS\/TS source files/],
      [{ scope: 'shop', previousIndexAt: 'yesterday-ish' }, /not a date/],
    ] as const) {
      const result = run(payload);
      expect(result).toMatchObject({ success: false, posture: 'blocked', specialistContract: { status: 'refused', refusalReason: expect.stringMatching(reason) } });
    }
  });
});
