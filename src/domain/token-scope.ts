/**
 * What a scoped token may read. `run`: one run (its record and event stream); `flow`: one flow
 * and its step runs (run ids `flow:<flowId>:<key>`); `tag`: the runs carrying one tag (each run
 * and its event stream, and the runs list filtered on that tag); `read`: everything the viewer
 * role reads.
 * Whatever the scope, a token carries the viewer role: it never writes. `approval` is an approval
 * link's: the one approval it shows and decides, as the key of the approver it names.
 */
export type TokenScope =
  | { kind: 'run'; runId: string }
  | { kind: 'flow'; flowId: string }
  | { kind: 'tag'; tag: string }
  | { kind: 'read' }
  | { kind: 'approval'; approvalId: string };

/**
 * What a route reads, as its table entry declares it for scoped tokens. A route that declares
 * nothing is open to `read` tokens only.
 */
export type ReadTarget =
  | { kind: 'self' }
  /** `tags`: the run's tags, looked up for a `tag` scope only (absent: not looked up; null: no such run). */
  | { kind: 'run'; runId: string; tags?: readonly string[] | null }
  /** `tags`: the `?tag=` filters of the listing. */
  | { kind: 'runs'; idPrefix: string | undefined; tags?: readonly string[] }
  | { kind: 'flow'; flowId: string }
  | { kind: 'approval'; approvalId: string }
  | { kind: 'feed' };

/** Whether the scope's answer for this target needs the run's tags (the caller looks them up, then asks scopeAllows). */
export function scopeNeedsRunTags(scope: TokenScope, target: ReadTarget | undefined): target is { kind: 'run'; runId: string } {
  return scope.kind === 'tag' && target?.kind === 'run' && target.tags === undefined;
}

/** The run id prefix of a flow's step runs. */
export const flowRunPrefix = (flowId: string) => `flow:${flowId}:`;

export function scopeAllows(scope: TokenScope, target: ReadTarget | undefined): boolean {
  if (target?.kind === 'self' || scope.kind === 'read') return true;
  if (target === undefined) return false;
  if (scope.kind === 'approval') return target.kind === 'approval' && target.approvalId === scope.approvalId;
  if (scope.kind === 'run') return target.kind === 'run' && target.runId === scope.runId;
  if (scope.kind === 'tag') {
    // A run it reads carries the tag; a listing filters on it, so it never lists another run.
    if (target.kind === 'run') return (target.tags ?? []).includes(scope.tag);
    return target.kind === 'runs' && (target.tags ?? []).includes(scope.tag);
  }
  const prefix = flowRunPrefix(scope.flowId);
  switch (target.kind) {
    case 'run':
      return target.runId.startsWith(prefix);
    case 'runs':
      return target.idPrefix !== undefined && target.idPrefix.startsWith(prefix);
    case 'flow':
      return target.flowId === scope.flowId;
    default:
      return false;
  }
}

export function describeScope(scope: TokenScope): string {
  switch (scope.kind) {
    case 'run':
      return `run ${scope.runId}`;
    case 'flow':
      return `flow ${scope.flowId} and its step runs (idPrefix ${flowRunPrefix(scope.flowId)})`;
    case 'tag':
      return `runs tagged ${scope.tag} (GET /api/tasks/runs?tag=${scope.tag}, each run and its event stream)`;
    case 'read':
      return 'what the viewer role reads';
    case 'approval':
      return `approval ${scope.approvalId} (to show and decide it)`;
  }
}
