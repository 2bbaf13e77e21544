/**
 * The spec's OrchestratorState document and its records (TaskRecord, CommunityRecord, RSSRecord,
 * DeploymentRecord), with the rules every store driver applies on write.
 */
/** What an in-process handler returns: the spec's TaskResult. */
export interface TaskResult {
  status: 'pending' | 'completed' | 'error';
  result?: unknown;
  error?: string;
  durationMs?: number;
}

export interface TaskRecord {
  type: string;
  status: 'pending' | 'completed' | 'error';
  timestamp: string;
  durationMs: number;
  result?: unknown;
  error?: string;
}

export interface CommunityRecord {
  timestamp: string;
  postId: string;
  postTitle: string;
  subcommunity: string;
  draftResponse: string;
  confidence: number;
  approved?: boolean;
  posted?: string;
}

export interface RSSRecord {
  timestamp: string;
  feedUrl: string;
  itemTitle: string;
  itemUrl: string;
  publishedAt: string;
  relevanceScore: number;
  urgency: 'high' | 'medium' | 'low';
  notes?: string;
  /** Set by nightly-batch: true on priority leads cleared for community-response without a person. */
  selectedForDraft?: boolean;
  /** Set by nightly-batch: how the lead was routed (selected, manual-review, promotion, none). */
  draftDecision?: 'selected' | 'manual-review' | 'promotion' | 'none';
}

export interface DeploymentRecord {
  timestamp: string;
  agentName: string;
  deployPath: string;
  metadata?: { version?: string; tags?: string[]; config?: unknown };
}

/**
 * The document without its task history: what a handler that never reads the history is given
 * (a shared database then skips reading the history on every run).
 */
export type StateWithoutHistory = Omit<OrchestratorState, 'taskHistory'>;

export interface OrchestratorState {
  lastStartedAt: string | null;
  tasksProcessed: number;
  taskHistory: TaskRecord[];
  docsIndexed: string[];
  communityResponses: CommunityRecord[];
  rssDrafts: RSSRecord[];
  deployedAgents: DeploymentRecord[];
  notes?: string;
}

export const STATE_BOUNDS = { taskHistory: 50, communityResponses: 100, rssDrafts: 200 } as const;

export function emptyOrchestratorState(): OrchestratorState {
  return {
    lastStartedAt: null,
    tasksProcessed: 0,
    taskHistory: [],
    docsIndexed: [],
    communityResponses: [],
    rssDrafts: [],
    deployedAgents: [],
  };
}

/**
 * The rules of the OrchestratorState document: the spec's retention (taskHistory 50,
 * communityResponses 100, rssDrafts 200) and how a finished task enters it. Arrays grow at the
 * end, so the newest are the last entries and those are the ones kept. Every store driver calls
 * boundState on write, so a reader never sees an over-long array whatever the caller handed in.
 */
export function boundState(state: OrchestratorState): OrchestratorState {
  return {
    ...state,
    taskHistory: keepNewest(state.taskHistory, STATE_BOUNDS.taskHistory),
    communityResponses: keepNewest(state.communityResponses, STATE_BOUNDS.communityResponses),
    rssDrafts: keepNewest(state.rssDrafts, STATE_BOUNDS.rssDrafts),
  };
}

function keepNewest<T>(items: T[], bound: number): T[] {
  return items.length > bound ? items.slice(items.length - bound) : items;
}

/** One finished task added to the state: tasksProcessed + 1 and the bounded taskHistory. */
export function withTaskRecord(state: OrchestratorState, record: TaskRecord): OrchestratorState {
  return {
    ...state,
    tasksProcessed: state.tasksProcessed + 1,
    taskHistory: keepNewest([...state.taskHistory, record], STATE_BOUNDS.taskHistory),
  };
}
