import { initialLayout } from './0001-initial-layout.js';
import { appendSequences } from './0002-append-sequences.js';
import { runEventStamps } from './0003-run-event-stamps.js';
import { taskCountDeltas } from './0004-task-count-deltas.js';
import { runWritesLighter } from './0005-run-writes-lighter.js';
import { runsByStatus } from './0006-runs-by-status.js';
import { fairClaims } from './0007-fair-claims.js';
import { runStarts } from './0008-run-starts.js';
import { flowStepStatuses } from './0009-flow-step-statuses.js';
import { claimHeads } from './0010-claim-heads.js';
import { runTags } from './0011-run-tags.js';

/** One schema change: applied once, in version order, inside its own transaction. */
export interface Migration {
  version: number;
  description: string;
  sql: string;
}

/** Every migration this build knows, oldest first. A new layout change is a new file appended here. */
export const MIGRATIONS: readonly Migration[] = [initialLayout, appendSequences, runEventStamps, taskCountDeltas, runWritesLighter, runsByStatus, fairClaims, runStarts, flowStepStatuses, claimHeads, runTags];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
