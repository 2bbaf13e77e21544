/**
 * The console's view of a result, declared by the task type (its `resultView`) and read here by
 * one interpreter, so the console never switches on type names. A spec names JSON pointers into
 * the result's fields (a handler's `{status, result}` envelope is opened first) and a few
 * value rules for results whose words need reading (a pattern's capture, a sum, a labelled
 * list). A result whose shape does not match its spec (a refusal, an older lane) is shown as
 * the generic tree. This module is pure and imports nothing: the console bundles it.
 */

/** A JSON pointer into the result's fields, e.g. `/totals/tests`. */
export type Pointer = string;

/** How one shown value is read from a result (or from one item of a list in it). */
export type ValueRule =
  | Pointer
  /** The first of `rules` that yields a value. */
  | { first: ValueRule[] }
  /** A fixed word. */
  | { const: string }
  /** The pointer's string matched against `pattern`; `value` may name capture groups as `$1`. */
  | { pointer: Pointer; pattern: string; value?: string }
  /** Numbers: the first minus the rest (absent ones count 0; absent first gives no value). */
  | { difference: Pointer[] }
  | { sum: Pointer[] }
  /** The values present, each after its prefix, joined. */
  | { join: Array<{ pointer: Pointer; prefix?: string }>; separator: string };

export interface FindingsSpec {
  caption: string;
  items: Pointer;
  severity: ValueRule;
  rule: ValueRule;
  file?: ValueRule;
  line?: ValueRule;
  message: ValueRule;
}

export interface TestsSpec {
  verdict: ValueRule;
  passed?: ValueRule;
  failed?: ValueRule;
  skipped?: ValueRule;
  failures?: { items: Pointer; name: ValueRule; where?: ValueRule; message?: ValueRule };
  note?: ValueRule;
  outputTail?: ValueRule;
}

export interface TextSpec {
  markdown: Pointer;
  title?: ValueRule;
  /** A list of strings appended as bullets unless the markdown already holds them. */
  bullets?: Pointer;
  facts?: Array<{ label: string; value: ValueRule; format?: 'percent' | 'list' }>;
}

export interface GatesSpec {
  items: Pointer;
  posture?: ValueRule;
  gate: ValueRule;
  status: ValueRule;
  evidence: ValueRule;
}

export interface ResultViewSpec {
  /** The result's verdict or posture word, shown beside the run's status. */
  verdict?: ValueRule;
  findings?: FindingsSpec;
  tests?: TestsSpec;
  text?: TextSpec;
  gates?: GatesSpec;
  /** Numbers worth a glance (counts, durations), shown as labelled facts. */
  metrics?: Array<{ label: string; value: ValueRule }>;
  /** Fields naming files or folders the run wrote. */
  artifacts?: Array<{ label: string; value: ValueRule }>;
}

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
  /** The end of the suite's output, for failures whose runner printed no message. */
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

type Fields = Record<string, unknown>;

const isRecord = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);

/** In-process handlers wrap their fields as `{status, result}`; workers return them directly. */
export function resultFields(result: unknown): Fields | null {
  if (!isRecord(result)) return null;
  if (isRecord(result.result) && typeof result.status === 'string') return result.result;
  return result;
}

/** RFC 6901 pointer lookup; `''` is the value itself. */
export function atPointer(value: unknown, pointer: Pointer): unknown {
  if (pointer === '') return value;
  let current = value;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current) && /^\d+$/.test(key)) current = current[Number(key)];
    else if (isRecord(current) && Object.hasOwn(current, key)) current = current[key];
    else return undefined;
  }
  return current;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The value a rule reads: a string, a finite number, or undefined. */
export function readRule(from: unknown, rule: ValueRule): string | number | undefined {
  if (typeof rule === 'string') {
    const v = atPointer(from, rule);
    return typeof v === 'string' || num(v) !== null ? (v as string | number) : undefined;
  }
  if ('first' in rule) {
    for (const inner of rule.first) {
      const v = readRule(from, inner);
      if (v !== undefined) return v;
    }
    return undefined;
  }
  if ('const' in rule) return rule.const;
  if ('pattern' in rule) {
    const text = atPointer(from, rule.pointer);
    if (typeof text !== 'string') return undefined;
    const match = new RegExp(rule.pattern, 's').exec(text);
    if (!match) return undefined;
    // A number read from words (`line 4: ...`) stays a string here; `count` reads digits as a number.
    return rule.value === undefined ? (match[1] ?? match[0]) : rule.value.replace(/\$(\d)/g, (_, n: string) => match[Number(n)] ?? '');
  }
  if ('difference' in rule) {
    const [head, ...rest] = rule.difference.map((p) => num(atPointer(from, p)));
    if (head === null || head === undefined) return undefined;
    return rest.reduce<number>((acc, v) => acc - (v ?? 0), head);
  }
  if ('sum' in rule) {
    const values = rule.sum.map((p) => num(atPointer(from, p)));
    return values.every((v) => v === null) ? undefined : values.reduce<number>((acc, v) => acc + (v ?? 0), 0);
  }
  const parts = rule.join
    .map(({ pointer, prefix }) => {
      const v = atPointer(from, pointer);
      return typeof v === 'string' || num(v) !== null ? `${prefix ?? ''}${String(v)}` : null;
    })
    .filter((p): p is string => p !== null);
  return parts.length > 0 ? parts.join(rule.separator) : undefined;
}

const text = (from: unknown, rule: ValueRule | undefined): string | null => {
  if (rule === undefined) return null;
  const v = readRule(from, rule);
  return v === undefined ? null : String(v);
};
const count = (from: unknown, rule: ValueRule | undefined): number | null => {
  if (rule === undefined) return null;
  const v = readRule(from, rule);
  if (typeof v === 'number') return v;
  return typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null;
};
const items = (from: unknown, pointer: Pointer): Fields[] | null => {
  const list = atPointer(from, pointer);
  return Array.isArray(list) ? list.filter(isRecord) : null;
};

function findingsView(r: Fields, spec: FindingsSpec): ResultView | null {
  const list = items(r, spec.items);
  if (!list) return null;
  const rows = list.map((f) => ({
    severity: text(f, spec.severity) ?? 'unknown',
    rule: text(f, spec.rule) ?? '—',
    file: text(f, spec.file),
    line: count(f, spec.line),
    message: text(f, spec.message) ?? '',
  }));
  return { kind: 'findings', rows, caption: spec.caption };
}

function testsView(r: Fields, spec: TestsSpec): ResultView | null {
  const verdict = text(r, spec.verdict);
  if (verdict === null) return null;
  const failures = spec.failures
    ? (items(r, spec.failures.items) ?? []).map((f) => ({
        name: text(f, spec.failures!.name) ?? '(unnamed test)',
        where: text(f, spec.failures!.where),
        message: text(f, spec.failures!.message),
      }))
    : [];
  return {
    kind: 'tests',
    verdict: {
      verdict,
      passed: count(r, spec.passed),
      failed: count(r, spec.failed),
      skipped: count(r, spec.skipped),
      failures,
      note: text(r, spec.note),
      outputTail: text(r, spec.outputTail),
    },
  };
}

function textView(r: Fields, spec: TextSpec): ResultView | null {
  const body = atPointer(r, spec.markdown);
  if (typeof body !== 'string') return null;
  const bulletList = spec.bullets ? atPointer(r, spec.bullets) : undefined;
  const bullets = Array.isArray(bulletList) ? bulletList.filter((b): b is string => typeof b === 'string') : [];
  const markdown = bullets.length > 0 && !body.includes('\n- ') ? `${body}\n\n${bullets.map((b) => `- ${b}`).join('\n')}` : body;
  const facts = (spec.facts ?? []).flatMap(({ label, value, format }) => {
    if (format === 'list') {
      const list = typeof value === 'string' ? atPointer(r, value) : undefined;
      return Array.isArray(list) ? [{ label, value: list.map(String).join(', ') }] : [];
    }
    const v = readRule(r, value);
    if (v === undefined) return [];
    return [{ label, value: format === 'percent' && typeof v === 'number' ? `${Math.round(v * 100)} %` : String(v) }];
  });
  return { kind: 'text', text: { title: text(r, spec.title), markdown, facts } };
}

function gatesView(r: Fields, spec: GatesSpec): ResultView | null {
  const list = items(r, spec.items);
  if (!list) return null;
  const gates = list.map((g) => ({ gate: text(g, spec.gate) ?? '—', status: text(g, spec.status) ?? 'unknown', evidence: text(g, spec.evidence) ?? '' }));
  return { kind: 'gates', posture: text(r, spec.posture), gates };
}

/** How a run's result is best shown, by its type's view spec and the shape the result has. */
export function resultViewOf(spec: ResultViewSpec | null | undefined, result: unknown): ResultView {
  const r = resultFields(result);
  if (!r || !spec) return { kind: 'tree' };
  const view =
    (spec.findings && findingsView(r, spec.findings)) ||
    (spec.tests && testsView(r, spec.tests)) ||
    (spec.text && textView(r, spec.text)) ||
    (spec.gates && gatesView(r, spec.gates)) ||
    null;
  return view ?? { kind: 'tree' };
}

/** The labelled numbers and artifacts a spec names that the result holds. */
export function resultFacts(spec: ResultViewSpec | null | undefined, result: unknown): { metrics: Array<{ label: string; value: string }>; artifacts: Array<{ label: string; value: string }>; verdict: string | null } {
  const r = resultFields(result);
  const pick = (list: Array<{ label: string; value: ValueRule }> | undefined) =>
    (list ?? []).flatMap(({ label, value }) => {
      const v = r ? readRule(r, value) : undefined;
      return v === undefined ? [] : [{ label, value: String(v) }];
    });
  return { metrics: pick(spec?.metrics), artifacts: pick(spec?.artifacts), verdict: r && spec?.verdict ? text(r, spec.verdict) : null };
}
