/**
 * The plan of an autonomous work cycle, derived deterministically from its requested outcome:
 * read-only inspection steps first, then one boundary step for every kind of consequential
 * action the outcome asks for. Boundary steps are never performed by the cycle: each stops it
 * for an operator's approval.
 */

export const BOUNDARY_KINDS = ['secret', 'mutation', 'install', 'migration', 'commit', 'push', 'merge', 'restart', 'deployment'] as const;
export type BoundaryKind = (typeof BOUNDARY_KINDS)[number];

export const DEFAULT_MAX_STEPS = 8;

/** Words of a requested outcome that mean each boundary. */
const BOUNDARY_WORDS: Readonly<Record<BoundaryKind, RegExp>> = {
  secret: /\b(secrets?|credentials?|passwords?|tokens?|api[ -]?keys?|private keys?)\b|\.env\b/,
  mutation: /\b(fix|fixes|change|changes|edit|modify|refactor|update|rename|remove|delete|add|implement|write|patch|rewrite|create|bump)\b/,
  install: /\b(install|reinstall|upgrade|npm i)\b/,
  migration: /\b(migrate|migration|migrations)\b/,
  commit: /\bcommits?\b/,
  push: /\bpush(es)?\b/,
  merge: /\bmerges?\b/,
  restart: /\b(restart|reboot|reload)\b/,
  deployment: /\b(deploy|deploys|deployment|release|ship)\b/,
};

/** Which lane of the service owns each boundary once an operator approves it. */
export const BOUNDARY_OWNER: Readonly<Record<BoundaryKind, string>> = {
  secret: 'an operator (secrets are never read by a lane)',
  mutation: 'build-refactor (approval-gated, scoped edits)',
  install: 'an operator (dependency installs are not automated)',
  migration: 'an operator (migrations are not automated)',
  commit: 'an operator (commits are not automated)',
  push: 'an operator (pushes are not automated)',
  merge: 'an operator (merges are not automated)',
  restart: 'an operator (restarts are not automated)',
  deployment: 'an operator; deployment-ops gives a posture but never deploys',
};

export type InspectionName = 'inventory' | 'search' | 'manifest';

export type PlanStep =
  | { index: number; kind: 'inspect'; name: InspectionName; description: string }
  | { index: number; kind: 'boundary'; boundary: BoundaryKind; description: string };

const STOP_WORDS = new Set(['the', 'and', 'for', 'with', 'that', 'this', 'from', 'into', 'all', 'our', 'any', 'are', 'its', 'then', 'them', 'what']);

/** Search terms of an outcome: its distinct words of four or more letters that name no boundary. */
export function searchTerms(outcome: string): string[] {
  const words = outcome.toLowerCase().match(/[a-z][a-z0-9_-]{3,}/g) ?? [];
  const boundary = (w: string) => Object.values(BOUNDARY_WORDS).some((re) => re.test(w));
  return [...new Set(words.filter((w) => !STOP_WORDS.has(w) && !boundary(w)))].slice(0, 8);
}

export function boundariesOf(outcome: string): BoundaryKind[] {
  const text = outcome.toLowerCase();
  return BOUNDARY_KINDS.filter((kind) => BOUNDARY_WORDS[kind].test(text));
}

export function planWorkCycle(outcome: string, maxSteps: number): { steps: PlanStep[]; omitted: PlanStep[] } {
  const inspections: PlanStep[] = [
    { index: 0, kind: 'inspect', name: 'inventory', description: 'List the project’s files (read-only).' },
    { index: 1, kind: 'inspect', name: 'search', description: `Find where the outcome’s terms occur: ${searchTerms(outcome).join(', ') || '(none)'}.` },
    { index: 2, kind: 'inspect', name: 'manifest', description: 'Read the project manifest (scripts, dependencies).' },
  ];
  const boundaries: PlanStep[] = boundariesOf(outcome).map((boundary, i) => ({
    index: inspections.length + i,
    kind: 'boundary',
    boundary,
    description: `Would ${boundary === 'mutation' ? 'change files' : `cross the ${boundary} boundary`}: stops for approval.`,
  }));
  const all = [...inspections, ...boundaries];
  return { steps: all.slice(0, maxSteps), omitted: all.slice(maxSteps) };
}
