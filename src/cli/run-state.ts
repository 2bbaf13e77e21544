/** The fields of a run that say whether it waits for an approval. */
export interface HeldSigns {
  status: string;
  queueState?: unknown;
  workflow?: { awaitingApproval?: unknown };
}

/**
 * True for a run held for an operator's decision: queue state `held`, shown by the run view as
 * `workflow.awaitingApproval`. Its status stays `pending` (the contract's transition table).
 */
export function isHeld(run: HeldSigns): boolean {
  return run.status === 'pending' && (run.queueState === 'held' || run.workflow?.awaitingApproval === true);
}

/** The run's state as a person reads it: its status, or "awaiting approval" for a held run. */
export function stateWords(run: HeldSigns): string {
  return isHeld(run) ? 'awaiting approval' : run.status;
}
