/**
 * What a scoped token may read. `run`: one run (its record and event stream); `flow`: one flow
 * and its step runs (run ids `flow:<flowId>:<key>`); `read`: everything the viewer role reads.
 * Whatever the scope, a token carries the viewer role: it never writes. `approval` is an approval
 * link's: the one approval it shows and decides, as the key of the approver it names.
 */
export type TokenScope =
  | { kind: 'run'; runId: string }
  | { kind: 'flow'; flowId: string }
  | { kind: 'read' }
  | { kind: 'approval'; approvalId: string };

/**
 * What a route reads, as its table entry declares it for scoped tokens. A route that declares
 * nothing is open to `read` tokens only.
 */
export type ReadTarget =
  | { kind: 'self' }
  | { kind: 'run'; runId: string }
  | { kind: 'runs'; idPrefix: string | undefined }
  | { kind: 'flow'; flowId: string }
  | { kind: 'approval'; approvalId: string }
  | { kind: 'feed' };

/** The run id prefix of a flow's step runs. */
export const flowRunPrefix = (flowId: string) => `flow:${flowId}:`;

export function scopeAllows(scope: TokenScope, target: ReadTarget | undefined): boolean {
  if (target?.kind === 'self' || scope.kind === 'read') return true;
  if (target === undefined) return false;
  if (scope.kind === 'approval') return target.kind === 'approval' && target.approvalId === scope.approvalId;
  if (scope.kind === 'run') return target.kind === 'run' && target.runId === scope.runId;
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
    case 'read':
      return 'what the viewer role reads';
    case 'approval':
      return `approval ${scope.approvalId} (to show and decide it)`;
  }
}
