/*
 * A run's result as the console shows it. Each task type declares which fields are its verdict,
 * findings, tests, text or gates (its `resultView` in the catalog); one interpreter
 * (src/task-types/result-view.ts) reads any type's result by that spec, so nothing here knows a
 * type by name. A result whose shape is not the one its spec reads (a refusal, an older lane)
 * falls back to the generic tree.
 */
export {
  resultFacts,
  resultFields,
  resultViewOf,
  type FindingRow,
  type Gate,
  type GeneratedText,
  type ResultView,
  type ResultViewSpec,
  type TestFailure,
  type TestVerdict,
} from '../../../src/task-types/result-view.js';

export const SEVERITY_ORDER = ['critical', 'high', 'fail', 'error', 'medium', 'warn', 'low', 'info', 'pass', 'not-applicable'];

/** Fields already shown elsewhere on the run page, left out of the result's tree. */
export const SHOWN_ELSEWHERE = new Set(['operatorSummary', 'recommendedNextActions', 'specialistContract']);
