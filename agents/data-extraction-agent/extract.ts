import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';
import { refuseLane, specialistContract, type LaneContext, type LaneRefusal, type LaneResult } from '../../src/worker-sdk/lane-result.js';
import { parseCsv } from './csv.js';
import { parseHtmlTable } from './html.js';
import { parseJson, parseJsonLines } from './json.js';
import { parseKeyValueText } from './key-value-text.js';
import { parseMarkdownTable } from './markdown.js';
import { selectFields } from './select-fields.js';
import { formatFromExtension, loadFile, loadInline, type SourceFormat, type SourceOrigin } from './source.js';
import type { ExtractedRecord, ParseOutcome, Reject } from './table.js';

export type ExtractionSuccess = LaneResult<{
  success: true;
  format: SourceFormat;
  /** True when the format came from the file extension because the payload named none. */
  formatInferred: boolean;
  source: SourceOrigin;
  columns: string[];
  records: ExtractedRecord[];
  recordCount: number;
  rejects: Reject[];
  missingFields: string[];
  tablesFound?: number;
}>;

export type ExtractionOutcome = ExtractionSuccess | (LaneRefusal & { rejects?: Reject[] });

const IDENTITY = { role: 'data-extraction-agent', workflowStage: 'extract', deliverable: 'structured records' };
const RESEND = 'Resend with source {content} or {path} (workspace-relative), format csv, json, jsonl, html, markdown or text, and optional fields[].';


function parse(format: SourceFormat, text: string): ParseOutcome {
  switch (format) {
    case 'csv':
      return parseCsv(text);
    case 'json':
      return parseJson(text);
    case 'jsonl':
      return parseJsonLines(text);
    case 'html':
      return parseHtmlTable(text);
    case 'markdown':
      return parseMarkdownTable(text);
    case 'text':
      return parseKeyValueText(text);
  }
}

function describeReject(reject: Reject): string {
  return `${reject.line !== undefined ? `line ${reject.line}` : `element ${reject.index}`}: ${reject.reason}`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function nextActions(rejects: Reject[], missing: string[], columns: string[], tablesFound: number | undefined): string[] {
  const actions: string[] = [];
  if (rejects.length > 0) actions.push(`Fix or re-export the ${plural(rejects.length, 'rejected row')} (first: ${describeReject(rejects[0]!)}) and extract again if they matter.`);
  if (missing.length > 0) actions.push(`Fields ${missing.map((m) => JSON.stringify(m)).join(', ')} are not in the source; its columns are ${columns.join(', ')}.`);
  if (tablesFound !== undefined && tablesFound > 1) actions.push(`The source holds ${tablesFound} tables and only the first was read; extract the others from their own files.`);
  actions.push('Run normalize-data on the records to type, validate and de-duplicate them.');
  return actions;
}

/**
 * The data-extraction lane: turns inline content or one workspace file into records. Parsing
 * is format-specific (see the parser files); values are kept as the source has them. Every
 * unit of the source that cannot become a record is listed in rejects with its line (or array
 * index) and reason. A source with nothing extractable fails the run with the reason.
 */
export async function extractData(payload: LanePayload<'data-extraction'>, context: LaneContext): Promise<ExtractionOutcome> {
  // The schema admits exactly one of {content} and {path}, a known format and 1–100 field names.
  const input = { source: payload.source, format: payload.format ?? null, fields: payload.fields ?? null };
  const inferred = 'path' in input.source && input.format === null ? formatFromExtension(input.source.path) : null;
  const format = input.format ?? inferred;
  if (format === null) {
    return refuseLane(
      IDENTITY,
      'path' in input.source
        ? `payload.format is missing and the extension of ${input.source.path} does not name one`
        : 'payload.format is required for inline content',
      [RESEND],
    );
  }

  const loaded = 'content' in input.source ? loadInline(input.source.content) : await loadFile(context.workspaceRoot, input.source.path);
  if ('problem' in loaded) return refuseLane(IDENTITY, loaded.problem, ['Point source.path at a text file inside the workspace, under the size limit.']);

  const parsed = parse(format, loaded.text);
  if ('problem' in parsed) return refuseLane(IDENTITY, parsed.problem, [`Check that the source is ${format} as declared.`]);
  if (parsed.records.length === 0) {
    const reason =
      parsed.rejects.length > 0
        ? `no record could be extracted: all ${plural(parsed.rejects.length, 'row')} rejected (first: ${describeReject(parsed.rejects[0]!)})`
        : `the ${format} source holds no records`;
    return { ...refuseLane(IDENTITY, reason, [`Check that the source is ${format} as declared and holds data rows.`]), rejects: parsed.rejects };
  }

  let { records, columns } = parsed;
  let missingFields: string[] = [];
  if (input.fields !== null) {
    const selection = selectFields(records, columns, input.fields);
    if (selection.columns.length === 0) {
      return refuseLane(IDENTITY, `none of the requested fields (${input.fields.join(', ')}) is a column of the source; its columns are ${columns.join(', ')}`, [
        'Resend with fields named as the source names its columns.',
      ]);
    }
    ({ records, columns } = selection);
    missingFields = selection.missing;
  }

  const partial = parsed.rejects.length > 0 || missingFields.length > 0;
  const where = loaded.origin.kind === 'file' ? loaded.origin.path : 'inline content';
  const summaryParts = [`Extracted ${plural(records.length, 'record')} with ${plural(columns.length, 'column')} from ${format} ${where}`];
  if (parsed.rejects.length > 0) summaryParts.push(`rejected ${plural(parsed.rejects.length, 'row')}`);
  if (missingFields.length > 0) summaryParts.push(`${plural(missingFields.length, 'requested field')} not found (${missingFields.join(', ')})`);

  return {
    success: true,
    format,
    formatInferred: input.format === null,
    source: loaded.origin,
    columns,
    records,
    recordCount: records.length,
    rejects: parsed.rejects,
    missingFields,
    ...(parsed.tablesFound !== undefined ? { tablesFound: parsed.tablesFound } : {}),
    operatorSummary: `${summaryParts.join('; ')}.`,
    recommendedNextActions: nextActions(parsed.rejects, missingFields, parsed.columns, parsed.tablesFound),
    specialistContract: specialistContract({ ...IDENTITY, status: partial ? 'partial' : 'completed' }),
  };
}
