import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractData } from '../../../agents/data-extraction-agent/extract.js';
import { MAX_SOURCE_BYTES } from '../../../agents/data-extraction-agent/source.js';
import { defineLane, type LanePayload } from '../../../src/worker-sdk/lane-definition.js';

let workspace: string;
let outside: string;
const context = () => ({ workspaceRoot: workspace, runId: null });
const extract = (payload: LanePayload<'data-extraction'>) => extractData(payload, context());
/** The lane as the worker runs it: the payload is checked against the data-extraction schema first. */
const checkedExtract = (payload: Record<string, unknown>) => defineLane('data-extraction', extractData).run(payload, context());

// A CRM export: a quoted comma, an escaped quote, an embedded line break, CRLF endings, a row
// with an extra field, one with a missing field and a quote that runs into text.
const CUSTOMERS_CSV = [
  'id,name,email,city',
  '1,"Okafor, Ada",ada@example.com,Lagos',
  '2,"Bram ""The Hammer"" de Vries",bram@example.nl,Utrecht',
  '3,Chen Wei,chen@example.cn,"Shanghai',
  'Pudong"',
  '4,Dana,dana@example.com,Austin,TX',
  '5,Eve,eve@example.com',
  '',
  '6,"Frank"x,frank@example.com,Oslo',
  '7,Grace,grace@example.com,"Boston, MA"',
].join('\r\n');

beforeAll(() => {
  workspace = mkdtempSync(join(tmpdir(), 'extract-ws-'));
  outside = mkdtempSync(join(tmpdir(), 'extract-outside-'));
  mkdirSync(join(workspace, 'exports'));
  writeFileSync(join(workspace, 'exports', 'customers.csv'), CUSTOMERS_CSV);
  writeFileSync(join(outside, 'secret.csv'), 'a,b\n1,2\n');
  symlinkSync(join(outside, 'secret.csv'), join(workspace, 'exports', 'linked.csv'));
  writeFileSync(join(workspace, 'exports', 'orders.ndjson'), '{"order":"A-1","total":12.5}\n{"order":"A-2","total":7}\n');
  writeFileSync(join(workspace, 'exports', 'blob.csv'), Buffer.from([0x61, 0x2c, 0x62, 0x0a, 0x00, 0x01]));
  writeFileSync(join(workspace, 'exports', 'notes.dat'), 'a: 1\n');
});
afterAll(() => {
  rmSync(workspace, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('csv', () => {
  it('reads quoted fields and rejects malformed rows with their line numbers', async () => {
    const result = await extract({ source: { path: 'exports/customers.csv' }, format: 'csv' });
    expect(result.success).toBe(true);
    if (!result.success) return;
    expect(result.columns).toEqual(['id', 'name', 'email', 'city']);
    expect(result.records).toEqual([
      { id: '1', name: 'Okafor, Ada', email: 'ada@example.com', city: 'Lagos' },
      { id: '2', name: 'Bram "The Hammer" de Vries', email: 'bram@example.nl', city: 'Utrecht' },
      { id: '3', name: 'Chen Wei', email: 'chen@example.cn', city: 'Shanghai\r\nPudong' },
      { id: '7', name: 'Grace', email: 'grace@example.com', city: 'Boston, MA' },
    ]);
    expect(result.recordCount).toBe(4);
    expect(result.rejects).toEqual([
      { line: 6, reason: 'expected 4 fields, found 5', raw: '4,Dana,dana@example.com,Austin,TX' },
      { line: 7, reason: 'expected 4 fields, found 3', raw: '5,Eve,eve@example.com' },
      { line: 9, reason: 'unexpected text "x" after a closing quote', raw: '6,"Frank"x,frank@example.com,Oslo' },
    ]);
    expect(result.source).toEqual({ kind: 'file', path: 'exports/customers.csv', bytes: Buffer.byteLength(CUSTOMERS_CSV) });
    expect(result.specialistContract.status).toBe('partial');
    expect(result.operatorSummary).toBe('Extracted 4 records with 4 columns from csv exports/customers.csv; rejected 3 rows.');
  });

  it('infers the format from the extension when the payload names none', async () => {
    const result = await extract({ source: { path: 'exports/customers.csv' } });
    expect(result).toMatchObject({ success: true, format: 'csv', formatInferred: true, recordCount: 4 });
    const jsonl = await extract({ source: { path: 'exports/orders.ndjson' } });
    expect(jsonl).toMatchObject({ success: true, format: 'jsonl', records: [{ order: 'A-1', total: 12.5 }, { order: 'A-2', total: 7 }] });
  });

  it('reports an unterminated quote as a reject from the line it opens on', async () => {
    const result = await extract({ source: { content: 'sku,qty\nA1,3\n"B2,4\nC3,5\n' }, format: 'csv' });
    expect(result.success).toBe(true);
    if (!result.success) return;
    expect(result.records).toEqual([{ sku: 'A1', qty: '3' }]);
    expect(result.rejects).toEqual([{ line: 3, reason: 'quoted field opened on line 3 is never closed', raw: '"B2,4\nC3,5\n' }]);
  });

  it('keeps, reorders and renames requested fields and names the missing ones', async () => {
    const result = await extract({
      source: { path: 'exports/customers.csv' },
      format: 'csv',
      fields: ['Email', 'name as fullName', 'phone'],
    });
    expect(result.success).toBe(true);
    if (!result.success) return;
    expect(result.columns).toEqual(['Email', 'fullName']);
    expect(result.records[0]).toEqual({ Email: 'ada@example.com', fullName: 'Okafor, Ada' });
    expect(result.missingFields).toEqual(['phone']);
    expect(result.recommendedNextActions.join('\n')).toContain('"phone" are not in the source; its columns are id, name, email, city');
  });

  it('refuses when no requested field exists', async () => {
    const result = await extract({ source: { path: 'exports/customers.csv' }, format: 'csv', fields: ['phone'] });
    expect(result).toMatchObject({ success: false, error: 'none of the requested fields (phone) is a column of the source; its columns are id, name, email, city' });
  });

  it('fails the run when every row is rejected, listing the rejects', async () => {
    const result = await extract({ source: { content: 'a,b\n1,2,3\n4\n' }, format: 'csv' });
    expect(result.success).toBe(false);
    expect(result).toMatchObject({
      error: 'no record could be extracted: all 2 rows rejected (first: line 2: expected 2 fields, found 3)',
      rejects: [{ line: 2 }, { line: 3 }],
    });
  });
});

describe('json and jsonl', () => {
  it('reads an object holding one array and rejects elements that are not objects', async () => {
    const content = JSON.stringify({ generatedAt: '2026-03-01', items: [{ sku: 'A1', tags: ['new'] }, 42, { sku: 'B2', price: 3.5 }, null] });
    const result = await extract({ source: { content }, format: 'json' });
    expect(result.success).toBe(true);
    if (!result.success) return;
    expect(result.records).toEqual([{ sku: 'A1', tags: ['new'] }, { sku: 'B2', price: 3.5 }]);
    expect(result.columns).toEqual(['sku', 'tags', 'price']);
    expect(result.rejects).toEqual([
      { index: 1, reason: 'element is a number, not an object', raw: '42' },
      { index: 3, reason: 'element is null, not an object', raw: 'null' },
    ]);
    expect(result.source).toEqual({ kind: 'inline', path: null, bytes: Buffer.byteLength(content) });
  });

  it('refuses JSON that does not parse or holds no record array', async () => {
    const broken = await extract({ source: { content: '[{"a": 1},' }, format: 'json' });
    expect(broken).toMatchObject({ success: false });
    expect(broken.operatorSummary).toMatch(/^Refused: the JSON does not parse: /);
    const ambiguous = await extract({ source: { content: '{"a":[{"x":1}],"b":[{"y":2}]}' }, format: 'json' });
    expect(ambiguous).toMatchObject({ success: false, error: expect.stringContaining('several array properties (a, b)') });
  });

  it('rejects the broken line of JSON Lines with its line number', async () => {
    const content = ['{"event":"login","user":"ada"}', '{"event":"logout","user":"ada"', '', '["not","an","object"]', '{"event":"login","user":"bram","ip":"10.0.0.7"}'].join('\n');
    const result = await extract({ source: { content }, format: 'jsonl' });
    expect(result.success).toBe(true);
    if (!result.success) return;
    expect(result.records).toEqual([
      { event: 'login', user: 'ada' },
      { event: 'login', user: 'bram', ip: '10.0.0.7' },
    ]);
    expect(result.columns).toEqual(['event', 'user', 'ip']);
    expect(result.rejects).toHaveLength(2);
    expect(result.rejects[0]).toMatchObject({ line: 2, raw: '{"event":"logout","user":"ada"' });
    expect(result.rejects[0]!.reason).toMatch(/^not valid JSON: /);
    expect(result.rejects[1]).toEqual({ line: 4, reason: 'line holds an array, not an object', raw: '["not","an","object"]' });
  });
});

describe('html', () => {
  const PAGE = `<!doctype html>
<html><body>
<h1>Price list</h1>
<!-- <table><tr><td>commented out</td></tr></table> -->
<table class="prices">
  <caption>Spring &amp; Summer</caption>
  <thead>
    <tr><th>Product</th><th>Price&nbsp;(&euro;)</th><th>Notes</th></tr>
  </thead>
  <tbody>
    <tr><td><a href="/p/1">Caf&eacute; cr&egrave;me</a></td><td>3.50</td><td>Oat milk &amp; <b>soy</b></td></tr>
    <tr><td>Cr&#234;pe</td><td>4.20</td><td>Contains &lt;nuts&gt;<br>and eggs</td></tr>
    <tr><td>Bagel</td><td>2.10</td></tr>
    <tr><td colspan="2">Gift card</td><td>&#x2014;</td></tr>
    <tr><td>Tea<td>1.80<td>Assam, Earl Grey
  </tbody>
</table>
<table><tr><th>Other</th></tr><tr><td>x</td></tr></table>
</body></html>`;

  it('reads the first table with decoded entities, stripped tags and rejected short rows', async () => {
    const result = await extract({ source: { content: PAGE }, format: 'html' });
    expect(result.success).toBe(true);
    if (!result.success) return;
    expect(result.columns).toEqual(['Product', 'Price (€)', 'Notes']);
    expect(result.records).toEqual([
      { Product: 'Café crème', 'Price (€)': '3.50', Notes: 'Oat milk & soy' },
      { Product: 'Crêpe', 'Price (€)': '4.20', Notes: 'Contains <nuts> and eggs' },
      { Product: 'Gift card', 'Price (€)': 'Gift card', Notes: '—' },
      { Product: 'Tea', 'Price (€)': '1.80', Notes: 'Assam, Earl Grey' },
    ]);
    expect(result.rejects).toEqual([{ line: 13, reason: 'expected 3 cells, found 2', raw: '<tr><td>Bagel</td><td>2.10</td></tr>' }]);
    expect(result.tablesFound).toBe(2);
    expect(result.recommendedNextActions.join('\n')).toContain('holds 2 tables and only the first was read');
  });

  it('uses the first row as the header when the table has no <th>, and carries rowspans down', async () => {
    const html = '<table><tr><td>Region</td><td>Quarter</td><td>Revenue</td></tr>' +
      '<tr><td rowspan="2">EMEA</td><td>Q1</td><td>1,200</td></tr><tr><td>Q2</td><td>1,350</td></tr></table>';
    const result = await extract({ source: { content: html }, format: 'html' });
    expect(result).toMatchObject({
      success: true,
      records: [
        { Region: 'EMEA', Quarter: 'Q1', Revenue: '1,200' },
        { Region: 'EMEA', Quarter: 'Q2', Revenue: '1,350' },
      ],
      rejects: [],
    });
  });

  it('refuses HTML without a table', async () => {
    const result = await extract({ source: { content: '<p>No data here</p>' }, format: 'html' });
    expect(result).toMatchObject({ success: false, error: 'the HTML has no <table> element' });
  });
});

describe('markdown', () => {
  it('reads a pipe table with escaped pipes and rejects rows of the wrong width', async () => {
    const content = [
      '# Release owners',
      '',
      'Owners per component:',
      '',
      '| Component | Owner | Pager |',
      '|:----------|:-----:|------:|',
      '| api | @ada | yes |',
      '| cli \\| tools | @bram | no |',
      '| web | @chen |',
      'docs | @dana | no',
      '',
      '| Other | Table |',
      '| --- | --- |',
      '| x | y |',
    ].join('\n');
    const result = await extract({ source: { content }, format: 'markdown' });
    expect(result.success).toBe(true);
    if (!result.success) return;
    expect(result.columns).toEqual(['Component', 'Owner', 'Pager']);
    expect(result.records).toEqual([
      { Component: 'api', Owner: '@ada', Pager: 'yes' },
      { Component: 'cli | tools', Owner: '@bram', Pager: 'no' },
      { Component: 'docs', Owner: '@dana', Pager: 'no' },
    ]);
    expect(result.rejects).toEqual([{ line: 9, reason: 'expected 3 cells, found 2', raw: '| web | @chen |' }]);
    expect(result.tablesFound).toBe(2);
  });

  it('refuses Markdown without a separator row', async () => {
    const result = await extract({ source: { content: '| a | b |\n| 1 | 2 |\n' }, format: 'markdown' });
    expect(result).toMatchObject({ success: false, error: expect.stringContaining('no pipe table') });
  });
});

describe('text', () => {
  it('groups key: value lines into records by blank lines', async () => {
    const content = [
      'Name: Ada Okafor',
      'Email: ada@example.com',
      'Website: https://ada.example.com',
      'Bio: Builds payment systems',
      '  and teaches on weekends.',
      '',
      '',
      'Name: Bram de Vries',
      'Meeting at 12:30',
      'Email: bram@example.nl',
      'Email: b.devries@example.nl',
      'Notes:',
    ].join('\n');
    const result = await extract({ source: { content }, format: 'text' });
    expect(result.success).toBe(true);
    if (!result.success) return;
    expect(result.records).toEqual([
      { Name: 'Ada Okafor', Email: 'ada@example.com', Website: 'https://ada.example.com', Bio: 'Builds payment systems and teaches on weekends.' },
      { Name: 'Bram de Vries', Email: 'bram@example.nl', Notes: '' },
    ]);
    expect(result.columns).toEqual(['Name', 'Email', 'Website', 'Bio', 'Notes']);
    expect(result.rejects).toEqual([
      { line: 9, reason: 'not a "key: value" line', raw: 'Meeting at 12:30' },
      { line: 11, reason: 'key "Email" repeats within its record; the first value is kept', raw: 'Email: b.devries@example.nl' },
    ]);
  });
});

describe('refusals', () => {
  it('refuses paths outside the workspace, through links too', async () => {
    const escape = await extract({ source: { path: '../secret.csv' }, format: 'csv' });
    expect(escape).toMatchObject({ success: false, error: 'path "../secret.csv" escapes the workspace root' });
    const linked = await extract({ source: { path: 'exports/linked.csv' }, format: 'csv' });
    expect(linked).toMatchObject({ success: false, error: expect.stringContaining('outside the workspace root through a symbolic link') });
    expect(linked.specialistContract).toMatchObject({ status: 'refused', refusalReason: linked.operatorSummary.replace('Refused: ', '') });
  });

  it('refuses a missing file, a directory, binary data and an unknown extension', async () => {
    expect(await extract({ source: { path: 'exports/none.csv' } })).toMatchObject({ success: false, error: 'file exports/none.csv does not exist in the workspace' });
    expect(await extract({ source: { path: 'exports' }, format: 'csv' })).toMatchObject({ success: false, error: 'exports is not a regular file' });
    expect(await extract({ source: { path: 'exports/blob.csv' } })).toMatchObject({ success: false, error: expect.stringContaining('binary data') });
    expect(await extract({ source: { path: 'exports/notes.dat' } })).toMatchObject({
      success: false,
      error: 'payload.format is missing and the extension of exports/notes.dat does not name one',
    });
  });

  it('refuses content over the size limit, or inline content without a format', async () => {
    const big = await extract({ source: { content: 'a\n'.repeat(MAX_SOURCE_BYTES / 2 + 1) }, format: 'csv' });
    expect(big).toMatchObject({ success: false, error: expect.stringContaining(`over the ${MAX_SOURCE_BYTES}-byte limit`) });
    expect(await extract({ source: { content: 'a,b\n1,2' } })).toMatchObject({ success: false, error: 'payload.format is required for inline content' });
  });

  it('refuses both content and path, an unknown format or an empty field list with the schema check admission applies', async () => {
    expect(await checkedExtract({ source: { content: 'x', path: 'y.csv' }, format: 'csv' })).toMatchObject({
      success: false,
      error: 'payload refused: /source does not match any accepted shape (see the payload schema in the task catalog)',
    });
    expect(await checkedExtract({ source: { content: 'x' }, format: 'xlsx' })).toMatchObject({
      success: false,
      error: 'payload refused: /format must be one of: csv, json, jsonl, html, markdown, text',
    });
    expect(await checkedExtract({ source: { content: 'x' }, format: 'csv', fields: [] })).toMatchObject({
      success: false,
      error: 'payload refused: /fields must not have fewer than 1 items',
    });
  });
});
