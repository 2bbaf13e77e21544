/**
 * What each agent is for (role, spine, target capabilities) and how its readiness is computed
 * from evidence. The table is declared; readiness, present and missing capabilities are not:
 * they come only from the manifest, the resolved entrypoints and the agent's successful runs.
 * The rule is written down in docs/agents.md.
 */

export const READINESS_LEVELS = ['declared', 'foundation', 'operational', 'advanced'] as const;
export type Readiness = (typeof READINESS_LEVELS)[number];

/** The spec's runtime signal names, waves 1-3. Reported only when a run result carries the key. */
export const RUNTIME_SIGNAL_NAMES: readonly string[] = [
  // wave 1
  'taskSpecificKnowledge', 'entityFreshnessLedger', 'contradictionGraph', 'partialCompletion', 'dependencyPlan',
  'workflowMemory', 'queueBudgetFusion', 'operatorClosureEvidence', 'trendSummary', 'regressionReview',
  'exploitabilityRanking', 'remediationClosure', 'acceptanceCoverage', 'closureContract', 'reproducibilityProfile',
  // wave 2
  'providerPosture', 'publicationPolicy', 'operationalCompression', 'artifactCoverage', 'comparisonReadiness', 'deltaCapture',
  // wave 3
  'scopeContract', 'surgeryProfile', 'verificationLoop', 'impactEnvelope', 'refusalProfile', 'trustPosture',
  'policyHandoff', 'telemetryHandoff', 'intakeCoverage', 'restartSafetySummary',
];

/** A target capability is present when a successful run's result carries any of its keys. */
export interface TargetCapability {
  name: string;
  resultKeys: readonly string[];
}

export interface CapabilityProfile {
  role: string;
  /** The agent's place in the system: the backbone its work hangs off. */
  spine: 'knowledge' | 'control-plane' | 'verification' | 'delivery' | 'data' | 'research' | 'governance' | 'community';
  targets: readonly TargetCapability[];
}

const cap = (name: string, ...resultKeys: string[]): TargetCapability => ({ name, resultKeys });
/** Every lane answers these (DECISIONS "Lane payloads and results"). */
const CONTRACT = [cap('operator-summary', 'operatorSummary'), cap('specialist-contract', 'specialistContract')];

export const CAPABILITY_PROFILES: Readonly<Record<string, CapabilityProfile>> = {
  'doc-specialist': {
    role: 'documentation drift repair',
    spine: 'knowledge',
    targets: [cap('drift-detection', 'driftDetected'), cap('knowledge-pack', 'knowledgePackRegenerated', 'knowledgePackPath', 'knowledgePack'), cap('audit', 'filesAudited', 'agentAuditResult')],
  },
  'community-helper': {
    role: 'community reply drafting',
    spine: 'community',
    targets: [cap('post-evaluation', 'postsEvaluated'), cap('drafting', 'draftedResponses', 'drafts'), cap('draft-log', 'draftsLogPath')],
  },
  'system-monitor-agent': {
    role: 'host and control-plane monitoring',
    spine: 'control-plane',
    targets: [...CONTRACT, cap('posture', 'posture'), cap('host-metrics', 'host', 'metrics', 'memory'), cap('incident-triage', 'incidents', 'triage')],
  },
  'security-agent': {
    role: 'security audit',
    spine: 'verification',
    targets: [...CONTRACT, cap('findings', 'findings'), cap('exploitability-ranking', 'exploitabilityRanking')],
  },
  'qa-verification-agent': {
    role: 'test verification',
    spine: 'verification',
    targets: [...CONTRACT, cap('test-plan', 'plan'), cap('execution-counts', 'passed', 'failed', 'skipped')],
  },
  'integration-agent': {
    role: 'multi-step workflow coordination',
    spine: 'control-plane',
    targets: [...CONTRACT, cap('workflow-steps', 'steps')],
  },
  'build-refactor-agent': {
    role: 'scoped code change with verification',
    spine: 'delivery',
    targets: [...CONTRACT, cap('code-change', 'filesChanged'), cap('verification', 'verification'), cap('rollback', 'rolledBack')],
  },
  'market-research-agent': {
    role: 'allowlisted market research',
    spine: 'research',
    targets: [...CONTRACT, cap('sources', 'sources'), cap('source-plan', 'sourcePlan')],
  },
  'operations-analyst-agent': {
    role: 'control-plane briefing',
    spine: 'control-plane',
    targets: [...CONTRACT, cap('posture', 'posture')],
  },
  'content-agent': {
    role: 'content generation',
    spine: 'delivery',
    targets: [...CONTRACT, cap('generated-content', 'content', 'text', 'draft')],
  },
  'data-extraction-agent': {
    role: 'structured data extraction',
    spine: 'data',
    targets: [...CONTRACT, cap('records', 'records', 'recordCount'), cap('rejects', 'rejects')],
  },
  'normalization-agent': {
    role: 'record normalization',
    spine: 'data',
    targets: [...CONTRACT, cap('records', 'records'), cap('rejections', 'rejected'), cap('stats', 'stats')],
  },
  'release-manager-agent': {
    role: 'release readiness',
    spine: 'delivery',
    targets: [...CONTRACT, cap('posture', 'posture')],
  },
  'deployment-ops-agent': {
    role: 'deployment operations posture',
    spine: 'delivery',
    targets: [...CONTRACT, cap('posture', 'posture')],
  },
  'code-index-agent': {
    role: 'source index',
    spine: 'knowledge',
    targets: [...CONTRACT, cap('file-index', 'files'), cap('import-graph', 'imports', 'edges')],
  },
  'test-intelligence-agent': {
    role: 'test report intelligence',
    spine: 'verification',
    targets: [...CONTRACT, cap('posture', 'posture'), cap('totals', 'totals'), cap('failing-cases', 'failures', 'failingCases')],
  },
  'compliance-agent': {
    role: 'licence and compliance review',
    spine: 'governance',
    targets: [...CONTRACT, cap('posture', 'posture'), cap('licence', 'license', 'licence')],
  },
  'summarization-agent': {
    role: 'content summarization',
    spine: 'knowledge',
    targets: [...CONTRACT, cap('summary', 'summary')],
  },
  'skill-audit-agent': {
    role: 'skill governance audit',
    spine: 'governance',
    targets: [...CONTRACT, cap('posture', 'posture'), cap('agent-audits', 'agents', 'audits', 'findings')],
  },
};

/** An agent missing from the table still gets an honest profile: the lane contract only. */
export function capabilityProfile(agent: { id: string; name: string }): CapabilityProfile {
  return CAPABILITY_PROFILES[agent.id] ?? { role: agent.name, spine: 'delivery', targets: CONTRACT };
}

export interface ReadinessEvidence {
  /** A worker entrypoint resolved (spawnable) or a resident service entrypoint exists. */
  runnable: boolean;
  lanes: readonly string[];
  /** Lanes with at least one successful run. */
  lanesWithSuccess: ReadonlySet<string>;
  /** Top-level result keys of the agent's recent successful runs. */
  successKeys: ReadonlySet<string>;
}

export interface ReadinessAssessment {
  currentReadiness: Readiness;
  presentCapabilities: string[];
  missingCapabilities: string[];
  /** What stands between the current readiness and `advanced`, in words; 'none' at advanced. */
  ultraGapSummary: string;
}

/**
 * declared: manifest only. foundation: runnable. operational: foundation plus a successful run
 * of one of its lanes. advanced: operational, every lane has succeeded, and every target
 * capability is covered by result fields of its successful runs.
 */
export function assessReadiness(profile: CapabilityProfile, evidence: ReadinessEvidence): ReadinessAssessment {
  const present = profile.targets.filter((t) => t.resultKeys.some((k) => evidence.successKeys.has(k))).map((t) => t.name);
  const missing = profile.targets.map((t) => t.name).filter((n) => !present.includes(n));
  const lanesWithout = evidence.lanes.filter((l) => !evidence.lanesWithSuccess.has(l));

  let readiness: Readiness = 'declared';
  if (evidence.runnable) readiness = 'foundation';
  if (readiness === 'foundation' && evidence.lanesWithSuccess.size > 0) readiness = 'operational';
  if (readiness === 'operational' && lanesWithout.length === 0 && missing.length === 0) readiness = 'advanced';

  const gaps: string[] = [];
  if (!evidence.runnable) gaps.push('no spawnable entrypoint or resident service entrypoint');
  if (lanesWithout.length > 0) gaps.push(`no successful run of ${lanesWithout.join(', ')}`);
  if (missing.length > 0) gaps.push(`no result fields for ${missing.join(', ')}`);
  return {
    currentReadiness: readiness,
    presentCapabilities: present,
    missingCapabilities: missing,
    ultraGapSummary: gaps.length === 0 ? 'none: every lane succeeded and every target capability is evidenced' : `${readiness} → advanced: ${gaps.join('; ')}`,
  };
}
