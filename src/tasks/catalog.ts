/**
 * The one task catalog. The trigger route (is the type known, public, approval-gated, which
 * payload fields are workspace paths), the catalog route (classification labels) and the runner
 * (handler or worker, which agent, may it retry) all read the same entry, so a fact about a
 * task type lives here and nowhere else.
 */

export type TaskExecutor = 'handler' | 'worker';
export type OperationalStatus = 'confirmed-working' | 'partially-operational' | 'externally-dependent' | 'unconfirmed';
export type DependencyClass = 'control-plane' | 'worker' | 'external';
export type BaselineConfidence = 'high' | 'medium' | 'low';

export interface CatalogEntry {
  type: string;
  label: string;
  purpose: string;
  /** The agent of the spec's Agent catalog that owns the lane; null for in-process handlers and planners. */
  agentId: string | null;
  internalOnly: boolean;
  publicTriggerable: boolean;
  /** Held for an operator decision by default (payload.requiresApproval can force it for any type). */
  approvalGated: boolean;
  /** The lane checks its tool grants before executing (the spec's "Tool-gate preflight" column). */
  toolGatePreflight: boolean;
  executor: TaskExecutor;
  /** Honest state of the lane in this build; telemetry overlays never change it. */
  operationalStatus: OperationalStatus;
  dependencyClass: DependencyClass;
  baselineConfidence: BaselineConfidence;
  dependencyRequirements: string[];
  caveats: string[];
  /** A failed run may be retried automatically (false where a repeat could duplicate a side effect). */
  retryable: boolean;
  /**
   * Payload fields holding workspace-relative paths, checked against the workspace boundary at
   * admission. `a.b` selects a nested field, `a[].b` a field of every element of array `a`.
   */
  scopeFields: string[];
  /** The executor hands the lane a bounded snapshot of the control plane (src/worker-sdk/control-plane.ts). */
  readsControlPlane: boolean;
  /** Its work changes code, deployments or outside systems: an approval of it is high risk. */
  highRiskWhenApproved: boolean;
  /** What its work touches besides its payload's workspace scopes and its agent (shown on the approval screen). */
  affectedSurfaces: string[];
  /** An operator may start it as a manual incident remediation (POST /api/incidents/:id/remediate). */
  remediation: boolean;
}

export const INTERNAL_TASK_TYPES = ['startup', 'doc-change', 'heartbeat'] as const;
export const APPROVAL_GATED_BY_DEFAULT = ['build-refactor', 'agent-deploy'] as const;
/** Lanes that judge the orchestrator itself and so need its state, which a worker cannot open. */
/** Types whose work changes code, deployments or outside systems. */
export const HIGH_RISK_WHEN_APPROVED = ['build-refactor', 'agent-deploy', 'deployment-ops', 'send-digest', 'community-response'] as const;
/** Surfaces a type touches that its payload does not name. */
const EXTRA_SURFACES: Readonly<Record<string, readonly string[]>> = { 'agent-deploy': ['deployments'] };
export const CONTROL_PLANE_LANES = [
  'system-monitor',
  'incident-triage',
  'control-plane-brief',
  'deployment-ops',
  'release-readiness',
  'skill-audit',
] as const;

type EntryInput = Omit<
  CatalogEntry,
  'internalOnly' | 'publicTriggerable' | 'approvalGated' | 'readsControlPlane' | 'highRiskWhenApproved' | 'affectedSurfaces' | 'remediation'
> & {
  remediation?: boolean;
};

function entry(input: EntryInput): CatalogEntry {
  const internalOnly = (INTERNAL_TASK_TYPES as readonly string[]).includes(input.type);
  return Object.freeze({
    ...input,
    remediation: input.remediation ?? false,
    internalOnly,
    publicTriggerable: !internalOnly,
    approvalGated: (APPROVAL_GATED_BY_DEFAULT as readonly string[]).includes(input.type),
    readsControlPlane: (CONTROL_PLANE_LANES as readonly string[]).includes(input.type),
    highRiskWhenApproved: (HIGH_RISK_WHEN_APPROVED as readonly string[]).includes(input.type),
    affectedSurfaces: [...(EXTRA_SURFACES[input.type] ?? [])],
    dependencyRequirements: [...input.dependencyRequirements],
    caveats: [...input.caveats],
    scopeFields: [...input.scopeFields],
  });
}

interface LaneInput {
  type: string;
  label: string;
  purpose: string;
  agentId: string | null;
  toolGatePreflight: boolean;
  retryable: boolean;
  scopeFields?: string[];
  dependencyClass?: DependencyClass;
  extraRequirements?: string[];
  extraCaveats?: string[];
  remediation?: boolean;
}

/**
 * A worker lane whose agent entrypoint ships in this build and does its deterministic work
 * locally; `externally-dependent` lanes name what they need beyond this machine in their caveats.
 */
function workerLane(input: LaneInput & { operationalStatus?: OperationalStatus }): CatalogEntry {
  return entry({
    type: input.type,
    label: input.label,
    purpose: input.purpose,
    agentId: input.agentId,
    toolGatePreflight: input.toolGatePreflight,
    executor: 'worker',
    operationalStatus: input.operationalStatus ?? 'confirmed-working',
    dependencyClass: input.dependencyClass ?? 'worker',
    baselineConfidence: 'medium',
    dependencyRequirements: [`${input.agentId} worker entrypoint (agents/${input.agentId})`, ...(input.extraRequirements ?? [])],
    caveats: [
      'Runs as a spawned worker process; it fails the run when the worker reports no logical success.',
      ...(input.extraCaveats ?? []),
    ],
    retryable: input.retryable,
    scopeFields: input.scopeFields ?? [],
    remediation: input.remediation,
  });
}

export const TASK_CATALOG: readonly CatalogEntry[] = Object.freeze([
  // Internal-only: started by the service itself, refused by the trigger route.
  entry({
    type: 'startup',
    label: 'Startup',
    purpose: 'Runs at every start: confirms the configuration loaded, indexes the docs folder and stamps lastStartedAt.',
    agentId: null,
    toolGatePreflight: false,
    executor: 'handler',
    operationalStatus: 'confirmed-working',
    dependencyClass: 'control-plane',
    baselineConfidence: 'high',
    dependencyRequirements: ['readable docsPath (an absent folder indexes zero docs)'],
    caveats: ['With ORCHESTRATOR_FAST_START the docs index is skipped and a doc-sync is queued instead.'],
    retryable: false,
    scopeFields: [],
  }),
  entry({
    type: 'doc-change',
    label: 'Doc change',
    purpose: 'Buffers changed doc paths, refreshes the knowledge index and admits a drift-repair at the threshold (25 pending paths).',
    agentId: null,
    toolGatePreflight: false,
    executor: 'handler',
    operationalStatus: 'confirmed-working',
    dependencyClass: 'control-plane',
    baselineConfidence: 'high',
    dependencyRequirements: ['writable logsDir (the buffer file)'],
    caveats: ['At 25 pending paths the repair loop admits at most one drift-repair per doc set, under the doc-repair lock and a cooldown.'],
    retryable: false,
    scopeFields: [],
  }),
  entry({
    type: 'heartbeat',
    label: 'Heartbeat',
    purpose: 'Scheduled every 5 minutes: uptime, memory use, queue depth and a healthy/degraded verdict.',
    agentId: null,
    toolGatePreflight: false,
    executor: 'handler',
    operationalStatus: 'confirmed-working',
    dependencyClass: 'control-plane',
    baselineConfidence: 'high',
    dependencyRequirements: ['queue depth from the state store'],
    caveats: ['Visible on the runs route only with includeInternal=true.'],
    retryable: false,
    scopeFields: [],
  }),

  // Public, in-process handlers.
  entry({
    type: 'doc-sync',
    label: 'Doc sync',
    purpose: 'Hashes the docs folder, detects changes against the previous index and regenerates the knowledge pack when needed.',
    agentId: null,
    toolGatePreflight: false,
    executor: 'handler',
    operationalStatus: 'confirmed-working',
    dependencyClass: 'control-plane',
    baselineConfidence: 'high',
    dependencyRequirements: ['readable docsPath (markdown and text files)', 'writable logsDir and knowledgePackDir'],
    caveats: [
      'The knowledge pack is generated in-process; drift-repair is the doc-specialist lane that audits and repairs.',
      'Indexes at most 5,000 files of at most 1 MiB each; larger files are skipped and counted.',
    ],
    retryable: true,
    scopeFields: [],
  }),
  entry({
    type: 'business-value-cycle',
    label: 'Business value cycle',
    purpose: 'Ranks bounded candidates from the business registry and enqueues at most one safe internal worker task.',
    agentId: null,
    toolGatePreflight: false,
    executor: 'handler',
    operationalStatus: 'confirmed-working',
    dependencyClass: 'control-plane',
    baselineConfidence: 'high',
    dependencyRequirements: ['business registry file (businessRegistryPath, schema 2.0.1)', 'the allowlisted worker lane of the selected candidate'],
    caveats: [
      'Never authorizes outreach, publishing, deployment, secret access or commercial commitments: such candidates are only listed as approval-gated.',
      'A direct trigger passes the same gate as POST /api/business/cycle/trigger (active, cooldown, paused, disabled, backoff); a refused one fails its run with the decision.',
    ],
    retryable: false,
    scopeFields: [],
  }),
  workerLane({
    type: 'drift-repair',
    label: 'Drift repair',
    purpose: 'Audits drifted docs and regenerates the knowledge pack with repair evidence, an operator summary and next actions.',
    agentId: 'doc-specialist',
    toolGatePreflight: false,
    retryable: true,
    scopeFields: ['paths'],
    remediation: true,
    extraRequirements: ['readable docsPath', 'writable knowledgePackDir'],
    extraCaveats: ['Writes a new knowledge pack version whether or not drift was found; the run fails when the pack does not verify.'],
  }),
  entry({
    type: 'rss-sweep',
    label: 'RSS sweep',
    purpose: 'Fetches the configured RSS/Atom feeds, scores each entry for relevance and urgency and records new drafts.',
    agentId: null,
    toolGatePreflight: false,
    executor: 'handler',
    operationalStatus: 'externally-dependent',
    dependencyClass: 'external',
    baselineConfidence: 'medium',
    dependencyRequirements: ['rssConfigPath naming a feeds file', 'outbound network access to every feed host'],
    caveats: [
      'Fails with each feed’s cause when no configured feed can be fetched; partial failures are listed in feedErrors.',
      'Relevance is a keyword-and-recency heuristic, not a model judgement.',
    ],
    retryable: true,
    scopeFields: [],
  }),
  entry({
    type: 'nightly-batch',
    label: 'Nightly batch',
    purpose: 'Selects high-urgency RSS drafts for community-response and raises manual-review and promotion approvals.',
    agentId: null,
    toolGatePreflight: false,
    executor: 'handler',
    operationalStatus: 'confirmed-working',
    dependencyClass: 'control-plane',
    baselineConfidence: 'high',
    dependencyRequirements: ['rssDrafts in state (written by rss-sweep)'],
    caveats: [
      'Also runs from cron (nightlyBatchCron).',
      'Review leads are held as community-response approvals; only an approved one is drafted, through its replay.',
    ],
    retryable: true,
    scopeFields: [],
  }),
  entry({
    type: 'send-digest',
    label: 'Send digest',
    purpose: 'Posts a JSON digest of recent task history and high-urgency drafts to the configured notification target.',
    agentId: null,
    toolGatePreflight: false,
    executor: 'handler',
    operationalStatus: 'externally-dependent',
    dependencyClass: 'external',
    baselineConfidence: 'medium',
    dependencyRequirements: [
      'digestTargetUrl (HTTP or HTTPS endpoint accepting a JSON POST) and/or digestTargetFile (JSONL outbox)',
      'outbound network access to the webhook target',
    ],
    caveats: ['Without a target, or when a target refuses, is unreachable or cannot be written, the run fails with the cause.'],
    retryable: true,
    scopeFields: [],
  }),

  // Public worker lanes.
  workerLane({
    type: 'community-response',
    label: 'Community response',
    purpose: 'Drafts replies from the latest knowledge pack for queue items selected for drafting.',
    agentId: 'community-helper',
    toolGatePreflight: false,
    retryable: true,
    extraRequirements: ['a knowledge pack (<knowledgePackDir>/latest.json, written by drift-repair)'],
    extraCaveats: [
      'Drafts only items with selectedForDraft=true; each item is drafted once per dedupe window and within the daily LLM budget, both claimed through shared coordination before the spawn.',
      'Drafts are deterministic and unmetered (no provider); nothing is posted, drafts wait for a human.',
    ],
  }),
  workerLane({
    type: 'content-generate',
    label: 'Content generation',
    purpose: 'Writes operator notices, readmes and similar text from a named source.',
    agentId: 'content-agent',
    toolGatePreflight: true,
    retryable: true,
  }),
  workerLane({
    type: 'market-research',
    label: 'Market research',
    purpose: 'Reads explicit URLs or a source plan from allowlisted domains and extracts titles, headings, prices and dates.',
    agentId: 'market-research-agent',
    toolGatePreflight: true,
    retryable: true,
    dependencyClass: 'external',
    operationalStatus: 'externally-dependent',
    extraRequirements: ['outbound network access to allowlisted domains'],
    extraCaveats: [
      'Private and loopback addresses and domains outside the allowlist are refused before any request (config marketResearch).',
      'Without network access the run fails as externally dependent; a plan from query or scope fetches nothing.',
    ],
  }),
  workerLane({
    type: 'data-extraction',
    label: 'Data extraction',
    purpose: 'Extracts records from inline content or a workspace file (csv, json, jsonl, html, markdown, text).',
    agentId: 'data-extraction-agent',
    toolGatePreflight: true,
    retryable: true,
    scopeFields: ['source.path'],
  }),
  workerLane({
    type: 'normalize-data',
    label: 'Normalize data',
    purpose: 'Coerces records to a field schema, rejects invalid ones with reasons and de-duplicates.',
    agentId: 'normalization-agent',
    toolGatePreflight: true,
    retryable: true,
  }),
  entry({
    type: 'summarize-content',
    label: 'Summarize content',
    purpose: 'Summarizes supplied content as an executive summary or bullets.',
    agentId: 'summarization-agent',
    toolGatePreflight: true,
    executor: 'worker',
    operationalStatus: 'confirmed-working',
    dependencyClass: 'worker',
    baselineConfidence: 'high',
    dependencyRequirements: ['summarization-agent worker entrypoint (agents/summarization-agent)'],
    caveats: ['Runs as a spawned worker process; it fails the run when the worker reports no logical success.'],
    retryable: true,
    scopeFields: [],
  }),
  workerLane({
    type: 'control-plane-brief',
    label: 'Control-plane brief',
    purpose: 'Fuses queue, approval, incident, service and proof truth into an operator brief.',
    agentId: 'operations-analyst-agent',
    toolGatePreflight: true,
    retryable: true,
  }),
  workerLane({
    type: 'incident-triage',
    label: 'Incident triage',
    purpose: 'Ranks the open incident queue.',
    agentId: 'system-monitor-agent',
    toolGatePreflight: true,
    retryable: true,
  }),
  workerLane({
    type: 'release-readiness',
    label: 'Release readiness',
    purpose: 'Gives a go/hold/block posture for a release; never deploys.',
    agentId: 'release-manager-agent',
    toolGatePreflight: true,
    retryable: true,
    scopeFields: ['scope'],
  }),
  workerLane({
    type: 'deployment-ops',
    label: 'Deployment ops',
    purpose: 'Gives a ready/watch/blocked deployment posture; never deploys or restarts.',
    agentId: 'deployment-ops-agent',
    toolGatePreflight: true,
    retryable: true,
  }),
  workerLane({
    type: 'code-index',
    label: 'Code index',
    purpose: 'Read-only index of a scoped repository with a ready/refresh/blocked posture.',
    agentId: 'code-index-agent',
    toolGatePreflight: true,
    retryable: true,
    scopeFields: ['scope'],
  }),
  workerLane({
    type: 'test-intelligence',
    label: 'Test intelligence',
    purpose: 'Reads test reports of a scoped repository for a ready/watching/blocked posture; never runs tests or CI.',
    agentId: 'test-intelligence-agent',
    toolGatePreflight: true,
    retryable: true,
    scopeFields: ['scope', 'reports'],
  }),
  workerLane({
    type: 'security-audit',
    label: 'Security audit',
    purpose: 'Scans a scoped path for secrets, risky code and dependency findings, ranked by exploitability.',
    agentId: 'security-agent',
    toolGatePreflight: true,
    retryable: true,
    scopeFields: ['scope'],
  }),
  workerLane({
    type: 'system-monitor',
    label: 'System monitor',
    purpose: 'Checks service health and reports a posture with its evidence.',
    agentId: 'system-monitor-agent',
    toolGatePreflight: true,
    retryable: true,
    remediation: true,
  }),
  workerLane({
    type: 'qa-verification',
    label: 'QA verification',
    purpose: 'Plans (dry-run) or executes a verification suite against a workspace target.',
    agentId: 'qa-verification-agent',
    toolGatePreflight: true,
    retryable: true,
    scopeFields: ['target'],
    remediation: true,
  }),
  workerLane({
    type: 'skill-audit',
    label: 'Skill audit',
    purpose: 'Audits an agent’s allowed skills and governance depth.',
    agentId: 'skill-audit-agent',
    toolGatePreflight: true,
    retryable: true,
  }),
  workerLane({
    type: 'integration-workflow',
    label: 'Integration workflow',
    purpose: 'Runs a short workflow of task steps (shorthand `<task-type>: <description>` or objects) as child runs.',
    agentId: 'integration-agent',
    toolGatePreflight: true,
    retryable: true,
    extraCaveats: [
      'Steps run one after another as child runs admitted by the service; a failed step is rerouted (default incident-triage) and the steps after it are skipped.',
    ],
  }),
  workerLane({
    type: 'compliance-review',
    label: 'Compliance review',
    purpose: 'Read-only compliance review of a scoped path with a clear/watching/blocked posture.',
    agentId: 'compliance-agent',
    toolGatePreflight: true,
    retryable: true,
    scopeFields: ['scope'],
  }),
  workerLane({
    type: 'build-refactor',
    label: 'Build refactor',
    purpose: 'Makes real, scoped code changes in a workspace repository with optional test verification.',
    agentId: 'build-refactor-agent',
    toolGatePreflight: true,
    // A repeat of a partially applied change set could edit files twice.
    retryable: false,
    scopeFields: ['scope', 'changes[].path'],
    remediation: true,
    extraCaveats: ['Approval-gated by default.'],
  }),
  entry({
    type: 'agent-deploy',
    label: 'Agent deploy',
    purpose: 'Copies an agent template into a new deployment directory, writes DEPLOYMENT.json and records the deployment.',
    agentId: null,
    toolGatePreflight: false,
    executor: 'handler',
    operationalStatus: 'confirmed-working',
    dependencyClass: 'control-plane',
    baselineConfidence: 'high',
    dependencyRequirements: ['template directory under agentsDir (or a workspace-relative templatePath)', 'writable deployBaseDir'],
    caveats: [
      'Approval-gated by default.',
      'Copies files only: it does not install, start or register the deployed agent as a service.',
    ],
    // Every attempt creates a new timestamped directory; a repeat would deploy twice.
    retryable: false,
    scopeFields: ['templatePath'],
  }),
  entry({
    type: 'autonomous-intake-cycle',
    label: 'Autonomous intake cycle',
    purpose: 'Applies priority, staleness, batch, provenance and idempotency controls to approved sources, then enqueues autonomous-work-cycle.',
    agentId: null,
    toolGatePreflight: false,
    executor: 'handler',
    operationalStatus: 'confirmed-working',
    dependencyClass: 'control-plane',
    baselineConfidence: 'high',
    dependencyRequirements: ['intake items in the payload, each from an approved source'],
    caveats: ['Unknown or unapproved sources are never run: each refused item is named with its reason.'],
    retryable: false,
    scopeFields: [],
  }),
  entry({
    type: 'autonomous-work-cycle',
    label: 'Autonomous work cycle',
    purpose: 'Pursues a requested outcome through tool-gated coding inspection, stopping for approval at every mutation boundary.',
    agentId: null,
    toolGatePreflight: true,
    executor: 'handler',
    operationalStatus: 'confirmed-working',
    dependencyClass: 'control-plane',
    baselineConfidence: 'medium',
    dependencyRequirements: ['coding-audit (read-only) and workspace-read in the skill registry', 'writable logsDir (checkpoints and invocation evidence)'],
    caveats: [
      'Mutation, secret, install, restart, deployment, migration, commit, push and merge steps stop for approval; an approved step is handed to its owner, never performed by the cycle.',
    ],
    retryable: false,
    scopeFields: ['projectRoot'],
  }),
]);

const BY_TYPE: ReadonlyMap<string, CatalogEntry> = new Map(TASK_CATALOG.map((e) => [e.type, e]));

export function getCatalogEntry(type: string): CatalogEntry | undefined {
  return BY_TYPE.get(type);
}

/** The entries the catalog route lists: every type except the internal-only ones. */
export function publicCatalog(): CatalogEntry[] {
  return TASK_CATALOG.filter((e) => !e.internalOnly);
}

const STATUS_LABEL: Record<OperationalStatus, string> = {
  'confirmed-working': 'confirmed working',
  'partially-operational': 'partially operational',
  'externally-dependent': 'externally dependent',
  unconfirmed: 'unconfirmed in latest sweep',
};

/** The spec's static classification labels for one entry, in the spec's wording. */
export function classificationLabels(e: CatalogEntry): string[] {
  const labels: string[] = [];
  if (e.internalOnly) labels.push('internal-only');
  if (e.publicTriggerable) labels.push('public-triggerable');
  if (e.approvalGated) labels.push('approval-gated');
  labels.push(STATUS_LABEL[e.operationalStatus]);
  return labels;
}
