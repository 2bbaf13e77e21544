import { createHash } from 'node:crypto';
import { basename, dirname } from 'node:path';
import { readScopedFile } from '../worker-sdk/scoped-file.js';
import { configuredPathProblem } from '../workspace/configured-folder.js';
import { Compile } from 'typebox/compile';
import { pointer, type ErrorDetail } from '../domain/errors.js';
import { BusinessRegistrySchema, REGISTRY_SCHEMA_VERSION, type BusinessRegistry, type RegistryAction } from './registry-schema.js';
import { isSafeInternalTaskType } from './safety.js';

const validator = Compile(BusinessRegistrySchema);
const MAX_REGISTRY_BYTES = 2 * 1024 * 1024;

/** The registry as a cycle sees it: loaded and valid, or why not. `path` of a problem is a JSON Pointer into the file. */
export type RegistryLoad =
  | { status: 'ok'; registry: BusinessRegistry; fingerprint: string; schemaVersion: string }
  | { status: 'missing' | 'invalid'; registry: null; fingerprint: string | null; problems: ErrorDetail[]; reason: string };

function actionProblems(action: RegistryAction | undefined, at: string[]): ErrorDetail[] {
  if (!action || action.kind !== 'internal-task') return [];
  if (!action.taskType) return [{ path: pointer(...at, 'taskType'), message: 'is required for an internal-task action' }];
  return [];
}

function duplicateIds(items: Array<{ id: string }>, field: string): ErrorDetail[] {
  const seen = new Set<string>();
  const problems: ErrorDetail[] = [];
  items.forEach((item, i) => {
    if (seen.has(item.id)) problems.push({ path: pointer(field, String(i), 'id'), message: `duplicates id '${item.id}'` });
    seen.add(item.id);
  });
  return problems;
}

/** Rules the schema cannot say: explicit unknowns, unique ids, a policy inside the safe lanes, linked ids that exist. */
function semanticProblems(registry: BusinessRegistry): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  registry.strategicInitiatives.forEach((initiative, i) => {
    initiative.kpis.forEach((kpi, k) => {
      if (kpi.current === null && !kpi.unknownReason) {
        problems.push({
          path: pointer('strategicInitiatives', String(i), 'kpis', String(k), 'unknownReason'),
          message: 'is required when current is null (an unknown KPI value is stated, never invented)',
        });
      }
    });
    problems.push(...actionProblems(initiative.nextAction, ['strategicInitiatives', String(i), 'nextAction']));
  });
  registry.pipeline.forEach((item, i) => {
    if (item.valueUsd === null && !item.valueUnknownReason) {
      problems.push({
        path: pointer('pipeline', String(i), 'valueUnknownReason'),
        message: 'is required when valueUsd is null (an unknown value is stated, never invented)',
      });
    }
    problems.push(...actionProblems(item.nextAction, ['pipeline', String(i), 'nextAction']));
  });
  registry.businessRisks.forEach((risk, i) => problems.push(...actionProblems(risk.mitigation, ['businessRisks', String(i), 'mitigation'])));
  const initiativeIds = new Set(registry.strategicInitiatives.map((s) => s.id));
  registry.coverageGaps.forEach((gap, i) => {
    if (gap.initiativeId !== undefined && !initiativeIds.has(gap.initiativeId)) {
      problems.push({ path: pointer('coverageGaps', String(i), 'initiativeId'), message: `names no strategic initiative ('${gap.initiativeId}')` });
    }
    problems.push(...actionProblems(gap.nextAction, ['coverageGaps', String(i), 'nextAction']));
  });
  registry.approvalPolicy.autoEnqueueTaskTypes.forEach((type, i) => {
    if (!isSafeInternalTaskType(type)) {
      problems.push({
        path: pointer('approvalPolicy', 'autoEnqueueTaskTypes', String(i)),
        message: `'${type}' is not a safe internal lane the planner may enqueue`,
      });
    }
  });
  problems.push(
    ...duplicateIds(registry.strategicInitiatives, 'strategicInitiatives'),
    ...duplicateIds(registry.businessRisks, 'businessRisks'),
    ...duplicateIds(registry.coverageGaps, 'coverageGaps'),
    ...duplicateIds(registry.pipeline, 'pipeline'),
  );
  return problems;
}

/** Validates parsed registry JSON; every problem names its field as a JSON Pointer into the file. */
export function validateRegistry(data: unknown): { registry: BusinessRegistry | null; problems: ErrorDetail[] } {
  if (typeof data === 'object' && data !== null && 'schemaVersion' in data && data.schemaVersion !== REGISTRY_SCHEMA_VERSION) {
    return {
      registry: null,
      problems: [{ path: '/schemaVersion', message: `must be '${REGISTRY_SCHEMA_VERSION}' (found ${JSON.stringify(data.schemaVersion)})` }],
    };
  }
  if (!validator.Check(data)) {
    const problems = [...validator.Errors(data)].slice(0, 20).map((e) => ({ path: e.instancePath || '/', message: e.message }));
    return { registry: null, problems };
  }
  const problems = semanticProblems(data);
  return problems.length > 0 ? { registry: null, problems } : { registry: data, problems: [] };
}

/** Where JSON.parse stopped, as "line L, column C", without quoting any of the text. */
export function jsonErrorPosition(err: Error, text: string): string {
  const lineColumn = /line (\d+) column (\d+)/.exec(err.message);
  if (lineColumn) return `line ${lineColumn[1]}, column ${lineColumn[2]}`;
  const position = /position (\d+)/.exec(err.message);
  if (!position) return 'unexpected end or character';
  const before = text.slice(0, Number(position[1]));
  const line = before.split('\n').length;
  return `line ${line}, column ${before.length - before.lastIndexOf('\n')}`;
}

export function fingerprintOf(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** Reads and validates the registry file; never throws for a missing or bad file (the cycle reports it). */
export async function loadRegistry(path: string, workspaceRoot: string): Promise<RegistryLoad> {
  const missing = (reason: string): RegistryLoad => ({ status: 'missing', registry: null, fingerprint: null, problems: [{ path: '/', message: reason }], reason });
  // Checked at every load: a registry swapped for a link would read (and report on) any file.
  const refused = configuredPathProblem(path, 'business registry', { workspaceRoot });
  if (refused) return missing(`refused: ${refused}`);
  const read = readScopedFile(dirname(path), basename(path), { maxBytes: MAX_REGISTRY_BYTES + 1 });
  if (!read.ok) {
    if (read.problem === 'missing') return missing('the business registry file does not exist');
    if (read.problem !== 'too-large') return missing(`the business registry file ${read.message}`);
  }
  const text = read.ok ? read.content.toString('utf8') : '';
  const fingerprint = fingerprintOf(text);
  if (!read.ok || Buffer.byteLength(text) > MAX_REGISTRY_BYTES) {
    const reason = 'the business registry file is larger than 2 MiB';
    return { status: 'invalid', registry: null, fingerprint, problems: [{ path: '/', message: reason }], reason };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    // The parser's message quotes the start of the text; only where it stopped is reported.
    const reason = `the business registry is not valid JSON (${jsonErrorPosition(err as Error, text)})`;
    return { status: 'invalid', registry: null, fingerprint, problems: [{ path: '/', message: reason }], reason };
  }
  const { registry, problems } = validateRegistry(parsed);
  if (!registry) {
    const reason = `the business registry is invalid: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`;
    return { status: 'invalid', registry: null, fingerprint, problems, reason };
  }
  return { status: 'ok', registry, fingerprint, schemaVersion: registry.schemaVersion };
}
