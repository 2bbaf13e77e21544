import { isRecord } from './format.js';

/*
 * Readers of a run's result by the task type that produced it. A result is whatever the lane
 * returned (src/lanes/, agents/), so each reader checks the fields it uses and falls back to the
 * generic tree when the shape is not the one it knows (an older lane, a refusal).
 */

export interface FindingRow {
  severity: string;
  rule: string;
  file: string | null;
  line: number | null;
  message: string;
}

export interface TestFailure {
  name: string;
  where: string | null;
  message: string | null;
}

export interface TestVerdict {
  verdict: string;
  passed: number | null;
  failed: number | null;
  skipped: number | null;
  failures: TestFailure[];
  note: string | null;
  /** The end of the suite's output (qa-verification), for failures whose runner printed no message. */
  outputTail: string | null;
}

export interface GeneratedText {
  title: string | null;
  markdown: string;
  facts: Array<{ label: string; value: string }>;
}

export interface Gate {
  gate: string;
  status: string;
  evidence: string;
}

export type ResultView =
  | { kind: 'findings'; rows: FindingRow[]; caption: string }
  | { kind: 'tests'; verdict: TestVerdict }
  | { kind: 'text'; text: GeneratedText }
  | { kind: 'gates'; posture: string | null; gates: Gate[] }
  | { kind: 'tree' };

/** In-process handlers wrap their fields as `{status, result}`; workers return them directly. */
export function resultFields(result: unknown): Record<string, unknown> | null {
  if (!isRecord(result)) return null;
  if (isRecord(result.result) && typeof result.status === 'string') return result.result;
  return result;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const records = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isRecord) : []);

export const SEVERITY_ORDER = ['critical', 'high', 'fail', 'error', 'medium', 'warn', 'low', 'info', 'pass', 'not-applicable'];

function securityFindings(r: Record<string, unknown>): FindingRow[] | null {
  if (!Array.isArray(r.findings)) return null;
  return records(r.findings).map((f) => ({
    severity: str(f.severity) ?? 'unknown',
    rule: str(f.rule) ?? '—',
    file: str(f.file),
    line: num(f.line),
    message: str(f.evidence) ?? '',
  }));
}

function complianceFindings(r: Record<string, unknown>): FindingRow[] | null {
  if (!Array.isArray(r.checks)) return null;
  return records(r.checks).map((c) => ({ severity: str(c.status) ?? 'unknown', rule: str(c.check) ?? '—', file: null, line: null, message: str(c.evidence) ?? '' }));
}

/** code-index problems read `line N: import "x" does not resolve (...)` or `unreadable: ...`. */
function codeIndexProblems(r: Record<string, unknown>): FindingRow[] | null {
  if (!Array.isArray(r.problems)) return null;
  return records(r.problems).map((p) => {
    const text = str(p.problem) ?? '';
    const lineMatch = /^line (\d+): (.*)$/s.exec(text);
    const rule = /does not resolve/.test(text) ? 'unresolved-import' : (/^([a-z-]+):/.exec(text)?.[1] ?? 'problem');
    return { severity: 'warn', rule, file: str(p.file), line: lineMatch ? Number(lineMatch[1]) : null, message: lineMatch ? lineMatch[2]! : text };
  });
}

function qaVerdict(r: Record<string, unknown>): TestVerdict | null {
  if (r.mode === 'dry-run') {
    return { verdict: 'planned (dry run)', passed: null, failed: null, skipped: null, failures: [], note: 'The suite was not run: a dry run only plans it.', outputTail: null };
  }
  if (typeof r.verdict !== 'string') return null;
  const failures = records(r.failures).map((f) => ({ name: str(f.name) ?? '(unnamed test)', where: str(f.file), message: str(f.message) }));
  const exit = num(r.exitCode);
  return {
    verdict: r.verdict,
    passed: num(r.passed),
    failed: num(r.failed),
    skipped: num(r.skipped),
    failures,
    note: [str(r.runner) ? `runner ${r.runner as string}` : null, exit !== null ? `exit code ${exit}` : null].filter(Boolean).join(', ') || null,
    outputTail: str(r.outputTail),
  };
}

function intelligenceVerdict(r: Record<string, unknown>): TestVerdict | null {
  if (!isRecord(r.totals) || typeof r.posture !== 'string') return null;
  const t = r.totals;
  const tests = num(t.tests);
  const failed = (num(t.failures) ?? 0) + (num(t.errors) ?? 0);
  const skipped = num(t.skipped);
  const failures = records(r.failures).map((f) => ({
    name: str(f.name) ?? '(unnamed test)',
    where: [str(f.classname), str(f.report)].filter(Boolean).join(' · ') || null,
    message: str(f.message),
  }));
  return {
    verdict: r.posture,
    passed: tests === null ? null : tests - failed - (skipped ?? 0),
    failed,
    skipped,
    failures,
    note: str(r.postureReason),
    outputTail: null,
  };
}

function contentText(r: Record<string, unknown>): GeneratedText | null {
  if (typeof r.content !== 'string') return null;
  const facts = [
    ['type', r.type],
    ['style', r.style],
    ['length', r.length],
    ['words', r.wordCount],
  ]
    .filter(([, v]) => typeof v === 'string' || typeof v === 'number')
    .map(([label, v]) => ({ label: label as string, value: String(v) }));
  return { title: str(r.title), markdown: r.content, facts };
}

function summaryText(r: Record<string, unknown>): GeneratedText | null {
  if (typeof r.summary !== 'string') return null;
  const bullets = Array.isArray(r.bullets) ? r.bullets.filter((b): b is string => typeof b === 'string') : [];
  const markdown = bullets.length > 0 && !r.summary.includes('\n- ') ? `${r.summary}\n\n${bullets.map((b) => `- ${b}`).join('\n')}` : r.summary;
  const facts = [
    ['topic', r.topic],
    ['format', r.format],
    ['words', r.wordCount],
    ['sentences kept', r.selectedSentenceCount],
    ['compression', typeof r.compressionRatio === 'number' ? `${Math.round(r.compressionRatio * 100)} %` : null],
    ['keywords', Array.isArray(r.keywords) ? r.keywords.join(', ') : null],
  ]
    .filter(([, v]) => typeof v === 'string' || typeof v === 'number')
    .map(([label, v]) => ({ label: label as string, value: String(v) }));
  return { title: null, markdown, facts };
}

function gates(r: Record<string, unknown>): Gate[] | null {
  if (!Array.isArray(r.gates)) return null;
  return records(r.gates).map((g) => ({ gate: str(g.gate) ?? '—', status: str(g.status) ?? 'unknown', evidence: str(g.evidence) ?? '' }));
}

/** How a run's result is best shown, by its task type and the shape it actually has. */
export function resultViewOf(type: string, result: unknown): ResultView {
  const r = resultFields(result);
  if (!r) return { kind: 'tree' };
  switch (type) {
    case 'security-audit': {
      const rows = securityFindings(r);
      return rows ? { kind: 'findings', rows, caption: 'Security findings' } : { kind: 'tree' };
    }
    case 'compliance-review': {
      const rows = complianceFindings(r);
      return rows ? { kind: 'findings', rows, caption: 'Compliance checks' } : { kind: 'tree' };
    }
    case 'code-index': {
      const rows = codeIndexProblems(r);
      return rows ? { kind: 'findings', rows, caption: 'Index problems' } : { kind: 'tree' };
    }
    case 'qa-verification': {
      const verdict = qaVerdict(r);
      return verdict ? { kind: 'tests', verdict } : { kind: 'tree' };
    }
    case 'test-intelligence': {
      const verdict = intelligenceVerdict(r);
      return verdict ? { kind: 'tests', verdict } : { kind: 'tree' };
    }
    case 'content-generate': {
      const text = contentText(r);
      return text ? { kind: 'text', text } : { kind: 'tree' };
    }
    case 'summarize-content': {
      const text = summaryText(r);
      return text ? { kind: 'text', text } : { kind: 'tree' };
    }
    case 'release-readiness': {
      const list = gates(r);
      return list ? { kind: 'gates', posture: str(r.posture), gates: list } : { kind: 'tree' };
    }
    default:
      return { kind: 'tree' };
  }
}

/** Fields already shown elsewhere on the run page, left out of the result's tree. */
export const SHOWN_ELSEWHERE = new Set(['operatorSummary', 'recommendedNextActions', 'specialistContract']);
