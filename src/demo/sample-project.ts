/**
 * A small, healthy Node.js project the demo places at `projects/sample-app`, so scoped lanes
 * (code index, security audit, compliance review, QA verification) have real files to read:
 * a licence, a README, modules that import each other, passing node:test tests and a
 * `.env.example` that names its settings without holding any secret. Paths are relative to
 * the project folder.
 */
export const SAMPLE_PROJECT_DIR = 'projects/sample-app';

const PACKAGE_JSON = {
  name: 'sample-app',
  version: '1.0.0',
  description: 'Stock levels for a small shop: parse a CSV inventory and report what to reorder.',
  license: 'MIT',
  type: 'module',
  main: 'src/index.js',
  scripts: { test: 'node --test' },
  engines: { node: '>=20' },
};

export const SAMPLE_PROJECT_FILES: Readonly<Record<string, string>> = {
  'package.json': `${JSON.stringify(PACKAGE_JSON, null, 2)}\n`,

  LICENSE: `MIT License

Copyright (c) 2025 The sample-app contributors

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
`,

  'README.md': `# sample-app

Stock levels for a small shop. Reads an inventory as CSV (\`sku,name,quantity,reorderAt\`) and
reports which items to reorder.

\`\`\`js
import { reorderReport } from './src/index.js';

console.log(reorderReport('sku,name,quantity,reorderAt\\nA1,Tea,2,5\\nB2,Mugs,12,4'));
// Reorder 1 of 2 items: Tea (2 left, reorder at 5)
\`\`\`

Run the tests with \`npm test\` (Node.js 20 or later, no dependencies). Settings are read from
the environment; \`.env.example\` lists them.
`,

  '.env.example': `# Copy to .env and fill in; .env is never committed.
# Port of the optional report server.
PORT=8080
# Token for the supplier's ordering API; leave empty to only print reports.
SUPPLIER_API_TOKEN=
`,

  'src/parse-inventory.js': `/** One stock line: what it is, how many are left and the level that triggers a reorder. */
const COLUMNS = ['sku', 'name', 'quantity', 'reorderAt'];

function toCount(value, line) {
  const count = Number(value);
  if (!Number.isInteger(count) || count < 0) {
    throw new Error(\`line \${line}: "\${value}" is not a whole number of items\`);
  }
  return count;
}

/** Parses \`sku,name,quantity,reorderAt\` CSV (header first) into item objects. */
export function parseInventory(csv) {
  const [header, ...rows] = csv.trim().split(/\\r?\\n/);
  if (header.trim() !== COLUMNS.join(',')) {
    throw new Error(\`expected the header "\${COLUMNS.join(',')}"\`);
  }
  return rows
    .filter((row) => row.trim() !== '')
    .map((row, index) => {
      const [sku, name, quantity, reorderAt] = row.split(',').map((cell) => cell.trim());
      const line = index + 2;
      return { sku, name, quantity: toCount(quantity, line), reorderAt: toCount(reorderAt, line) };
    });
}
`,

  'src/reorder.js': `/** Items at or below their reorder level, lowest stock first so the most urgent lead. */
export function itemsToReorder(items) {
  return items
    .filter((item) => item.quantity <= item.reorderAt)
    .sort((a, b) => a.quantity - b.quantity || a.sku.localeCompare(b.sku));
}
`,

  'src/index.js': `import { parseInventory } from './parse-inventory.js';
import { itemsToReorder } from './reorder.js';

export { parseInventory } from './parse-inventory.js';
export { itemsToReorder } from './reorder.js';

/** One line for a person: how many items to reorder, and which. */
export function reorderReport(csv) {
  const items = parseInventory(csv);
  const due = itemsToReorder(items);
  const checked = \`\${items.length} item\${items.length === 1 ? '' : 's'}\`;
  if (due.length === 0) return \`Nothing to reorder (\${checked} checked)\`;
  const list = due.map((item) => \`\${item.name} (\${item.quantity} left, reorder at \${item.reorderAt})\`);
  return \`Reorder \${due.length} of \${checked}: \${list.join(', ')}\`;
}
`,

  'test/parse-inventory.test.js': `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseInventory } from '../src/parse-inventory.js';

test('parses items with whole-number counts', () => {
  assert.deepEqual(parseInventory('sku,name,quantity,reorderAt\\nA1,Tea,2,5\\n'), [
    { sku: 'A1', name: 'Tea', quantity: 2, reorderAt: 5 },
  ]);
});

test('names the line of a bad count', () => {
  assert.throws(() => parseInventory('sku,name,quantity,reorderAt\\nA1,Tea,two,5'), /line 2/);
});

test('refuses a file without the expected header', () => {
  assert.throws(() => parseInventory('A1,Tea,2,5'), /expected the header/);
});
`,

  'test/reorder-report.test.js': `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { itemsToReorder, reorderReport } from '../src/index.js';

const CSV = 'sku,name,quantity,reorderAt\\nA1,Tea,2,5\\nB2,Mugs,12,4\\nC3,Honey,0,3';

test('lists items at or below their reorder level, most urgent first', () => {
  const items = [
    { sku: 'A1', name: 'Tea', quantity: 2, reorderAt: 5 },
    { sku: 'B2', name: 'Mugs', quantity: 12, reorderAt: 4 },
    { sku: 'C3', name: 'Honey', quantity: 0, reorderAt: 3 },
  ];
  assert.deepEqual(itemsToReorder(items).map((item) => item.sku), ['C3', 'A1']);
});

test('reports what to reorder in one line', () => {
  assert.equal(reorderReport(CSV), 'Reorder 2 of 3 items: Honey (0 left, reorder at 3), Tea (2 left, reorder at 5)');
  assert.equal(reorderReport('sku,name,quantity,reorderAt\\nB2,Mugs,12,4'), 'Nothing to reorder (1 item checked)');
});
`,
};
