/**
 * Every skill an agent may be granted in `agents/<id>/agent.config.json` `allowedSkills`.
 * A skill is `executable` when code in this repository performs it (the binding names where),
 * `declared` when an agent may hold it but nothing performs it yet. A manifest naming an id
 * missing here fails start-up (see validateManifestSkills).
 */

export const SKILL_EXECUTABILITY = ['executable', 'declared'] as const;
export type SkillExecutability = (typeof SKILL_EXECUTABILITY)[number];

export const SKILL_PERSISTENCE_MODES = ['read-only', 'writes-workspace', 'writes-logs', 'writes-state', 'none'] as const;
export type SkillPersistenceMode = (typeof SKILL_PERSISTENCE_MODES)[number];

export const SKILL_RISKS = ['low', 'medium', 'high'] as const;
export type SkillRisk = (typeof SKILL_RISKS)[number];

export interface SkillDefinition {
  id: string;
  description: string;
  executability: SkillExecutability;
  /**
   * What performs the skill: `worker:<mechanism>` inside the spawned lane process,
   * `service:<mechanism>` inside the orchestrator on the lane's behalf; null when nothing does.
   */
  executorBinding: string | null;
  persistenceMode: SkillPersistenceMode;
  risk: SkillRisk;
}

function skill(
  id: string,
  executorBinding: string | null,
  persistenceMode: SkillPersistenceMode,
  risk: SkillRisk,
  description: string,
): SkillDefinition {
  return { id, description, executability: executorBinding === null ? 'declared' : 'executable', executorBinding, persistenceMode, risk };
}

export const SKILL_DEFINITIONS: readonly SkillDefinition[] = [
  // Workspace files.
  skill('workspace-read', 'worker:fs-read', 'read-only', 'low', 'Reads files inside the workspace root (and the payload scope), bounded walks that skip node_modules and .git.'),
  skill('workspace-write', 'worker:fs-write', 'writes-workspace', 'high', 'Creates, replaces and deletes files inside the payload scope as one transaction that rolls back on failure.'),
  skill('test-report-read', 'worker:fs-read', 'read-only', 'low', 'Finds and parses test reports (JUnit XML, TAP, JSON) in the workspace.'),
  skill('license-scan', 'worker:fs-read', 'read-only', 'low', 'Identifies the licence of a project and of its declared dependencies from LICENSE files and package manifests.'),
  skill('dependency-license-lookup', 'worker:fs-read', 'read-only', 'low', 'Reads the licences of declared dependencies from their installed manifests and licence files in the scope, without network access.'),
  skill('source-index', 'worker:fs-read', 'read-only', 'low', 'Lists source files with their exported symbols and the import edges between them.'),
  skill('secret-scan', 'worker:fs-read', 'read-only', 'medium', 'Detects exposed credentials in workspace files, dotfiles included; evidence is masked and never carries a secret value.'),
  skill('code-pattern-scan', 'worker:fs-read', 'read-only', 'low', 'Flags risky code patterns (eval, shell interpolation, SQL concatenation, disabled TLS checks) by file and line.'),
  skill('dependency-audit', 'worker:fs-read', 'read-only', 'low', 'Reviews declared dependencies and install scripts from package manifests and lockfiles, without network access.'),
  skill('file-permission-audit', 'worker:fs-stat', 'read-only', 'low', 'Reports world-writable files and sensitive files readable by other users.'),
  // Processes.
  skill('test-runner', 'worker:child-process', 'writes-workspace', 'high', 'Runs the target project’s npm test script (test:<suite> or test) as a child process with a minimal environment and a timeout.'),
  skill('npm-script-runner', 'worker:child-process', 'writes-workspace', 'high', 'Runs one named npm script of the target project as a child process to verify a change.'),
  // Network.
  skill('http-fetch-allowlisted', 'worker:http-fetch', 'none', 'medium', 'Fetches public pages from allowlisted domains; private and loopback addresses are refused before any connection.'),
  // In-process analysis of what the payload carries.
  skill('html-extract', 'worker:in-process', 'none', 'low', 'Extracts titles, headings, prices and dates from fetched HTML.'),
  skill('data-extract', 'worker:in-process', 'none', 'low', 'Extracts structured records from CSV, JSON, JSONL, HTML, Markdown or text.'),
  skill('text-summarize', 'worker:in-process', 'none', 'low', 'Builds deterministic extractive summaries of submitted text.'),
  skill('host-metrics-read', 'worker:os-metrics', 'read-only', 'low', 'Reads the host’s memory, load, uptime, process RSS and the disk of the state folder from the OS.'),
  skill('skill-registry-read', 'worker:skill-registry', 'read-only', 'low', 'Reads this governed skill registry and the lane skill requirement table.'),
  // Orchestrator truth, handed to the lane in the control-plane snapshot.
  skill('state-read', 'service:store-read', 'read-only', 'low', 'Reads the bounded control-plane snapshot of the state store (service, run figures, recent runs).'),
  skill('queue-read', 'service:store-read', 'read-only', 'low', 'Reads queue depth: queued, processing, held and retrying runs.'),
  skill('approval-read', 'service:store-read', 'read-only', 'low', 'Reads pending approvals (task, type, requested time).'),
  skill('incident-read', 'service:store-read', 'read-only', 'low', 'Reads open incidents, most severe first.'),
  skill('proof-read', 'service:store-read', 'read-only', 'low', 'Reads the latest milestones (startup and proof records).'),
  skill('agent-registry-read', 'service:agent-registry', 'read-only', 'low', 'Reads every agent’s lanes, lifecycle, allowed skills and run counts from the snapshot.'),
  // Performed by the service itself.
  skill('task-admit', 'service:admission', 'writes-state', 'medium', 'Admits child task runs through the one central admission path (idempotency, approval gate).'),
  skill('docs-read', 'service:docs-index', 'read-only', 'low', 'Reads and indexes the Markdown and text documents under docsPath.'),
  skill('knowledge-pack-write', 'service:doc-sync', 'writes-logs', 'medium', 'Writes knowledge pack files into knowledgePackDir.'),
  // Granted but performed by nothing in this build.
  skill('knowledge-query', null, 'read-only', 'low', 'Queries the knowledge index for passages relevant to a request.'),
  skill('llm-draft', null, 'none', 'medium', 'Sends text to an external language-model provider to draft or polish prose.'),
  skill('community-queue-read', null, 'read-only', 'low', 'Reads community queue items selected for drafting.'),
  skill('community-draft-write', null, 'writes-logs', 'medium', 'Appends reply drafts to logs/community-drafts.jsonl.'),
  skill('metrics-read', null, 'read-only', 'low', 'Reads the service’s own Prometheus metrics.'),
  skill('service-probe-read', null, 'read-only', 'low', 'Probes host service units (installed, running, unit state).'),
  skill('coding-audit', 'service:work-cycle-inspection', 'read-only', 'medium', 'Narrowest approved coding tool of the autonomous work cycle: inspects a project without changing it.'),
];
