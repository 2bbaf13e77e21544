/**
 * The skills each tool-gated lane exercises, read from what the lane's code does. The tool-gate
 * preflight refuses a run whose agent is not granted all of them (or when one is not executable).
 * A lane lists what it may touch on any payload (build-refactor runs its npm script only when
 * asked to verify, but a preflight cannot know which runs will), and nothing it never touches.
 */
export const LANE_SKILL_REQUIREMENTS: Readonly<Record<string, readonly string[]>> = {
  // Control-plane lanes judge the orchestrator from the snapshot the executor hands them.
  'control-plane-brief': ['state-read', 'queue-read', 'approval-read', 'incident-read', 'proof-read'],
  'incident-triage': ['state-read', 'queue-read', 'incident-read'],
  'system-monitor': ['state-read', 'queue-read', 'incident-read', 'host-metrics-read'],
  'deployment-ops': ['state-read', 'queue-read', 'approval-read', 'incident-read'],
  // Reads the snapshot gates and the repository (JUnit reports) under an optional scope.
  'release-readiness': ['workspace-read', 'state-read', 'incident-read'],
  'code-index': ['workspace-read', 'source-index'],
  'test-intelligence': ['workspace-read', 'test-report-read'],
  'compliance-review': ['workspace-read', 'license-scan', 'dependency-license-lookup'],
  'security-audit': ['workspace-read', 'secret-scan', 'code-pattern-scan', 'dependency-audit', 'file-permission-audit'],
  'summarize-content': ['text-summarize'],
  // The deterministic path composes text from the payload's source and touches no tool; the
  // provider polish (llm-draft) is optional and not performed by this build, so it is not required.
  'content-generate': [],
  // The worker plans the steps; the service admits each as a child run and reads its outcome.
  'integration-workflow': ['task-admit', 'state-read'],
  // Records and schema travel in the payload: no file, process, network or state access.
  'normalize-data': [],
  'market-research': ['http-fetch-allowlisted', 'html-extract'],
  'data-extraction': ['workspace-read', 'data-extract'],
  'qa-verification': ['workspace-read', 'test-runner'],
  'skill-audit': ['agent-registry-read', 'skill-registry-read'],
  // Verification runs `npm run <testRunner.script>`: the npm-script-runner skill, not the QA test runner.
  'build-refactor': ['workspace-read', 'workspace-write', 'npm-script-runner'],
  'autonomous-work-cycle': ['workspace-read', 'coding-audit'],
};

/** Task types whose runs pass the tool-gate preflight: exactly the keys of the table. */
export const TOOL_GATED_LANES: readonly string[] = Object.keys(LANE_SKILL_REQUIREMENTS);
