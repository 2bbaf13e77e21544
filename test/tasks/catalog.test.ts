import { describe, expect, it } from 'vitest';
import {
  classificationLabels,
  getCatalogEntry,
  publicCatalog,
  TASK_CATALOG,
} from '../../src/runtime/catalog.js';
import { loadAgentRegistry } from '../../src/agents/registry.js';
import { BUSINESS_HANDLER_TYPES } from '../../src/business/module.js';
import { coreHandlerLanes } from '../../src/lanes/core-handlers.js';
import { testConfig } from '../support/config.js';
import { AGENTS_DIR } from '../support/paths.js';
import { PAYLOAD_SCHEMAS } from '../../src/lanes/payload-schemas.js';
import { REMEDIATION_TASK_TYPES } from '../../src/incidents/manual-remediation.js';

// The spec's "Task types" lists, verbatim.
const SPEC_INTERNAL = ['startup', 'doc-change', 'heartbeat'];
const SPEC_PUBLIC = [
  'doc-sync', 'business-value-cycle', 'drift-repair', 'rss-sweep', 'nightly-batch', 'send-digest',
  'community-response', 'content-generate', 'market-research', 'data-extraction', 'normalize-data',
  'summarize-content', 'control-plane-brief', 'incident-triage', 'release-readiness', 'deployment-ops',
  'code-index', 'test-intelligence', 'security-audit', 'system-monitor', 'qa-verification', 'skill-audit',
  'integration-workflow', 'compliance-review', 'build-refactor', 'agent-deploy', 'autonomous-intake-cycle',
  'autonomous-work-cycle',
];

// The spec's Agent catalog: agent id → lanes.
const SPEC_AGENTS: Record<string, string> = {
  'drift-repair': 'doc-specialist',
  'system-monitor': 'system-monitor-agent',
  'incident-triage': 'system-monitor-agent',
  'security-audit': 'security-agent',
  'qa-verification': 'qa-verification-agent',
  'integration-workflow': 'integration-agent',
  'build-refactor': 'build-refactor-agent',
  'market-research': 'market-research-agent',
  'control-plane-brief': 'operations-analyst-agent',
  'community-response': 'community-helper',
  'content-generate': 'content-agent',
  'data-extraction': 'data-extraction-agent',
  'normalize-data': 'normalization-agent',
  'release-readiness': 'release-manager-agent',
  'deployment-ops': 'deployment-ops-agent',
  'code-index': 'code-index-agent',
  'test-intelligence': 'test-intelligence-agent',
  'compliance-review': 'compliance-agent',
  'summarize-content': 'summarization-agent',
  'skill-audit': 'skill-audit-agent',
};

const HANDLER_TYPES = ['startup', 'heartbeat', 'doc-sync', 'doc-change', 'agent-deploy', 'nightly-batch', 'send-digest', 'rss-sweep'];
// Served in-process by the business module (src/business/module.ts), wired in the composition root.
const BUSINESS_TYPES = ['business-value-cycle', 'autonomous-intake-cycle', 'autonomous-work-cycle'];
// Served in-process by the knowledge module (src/knowledge/compose.ts).
const KNOWLEDGE_TYPES = ['doc-sync', 'doc-change'];

describe('task catalog', () => {
  it('holds every task type of the spec exactly once', () => {
    const types = TASK_CATALOG.map((e) => e.type);
    expect(new Set(types).size).toBe(types.length);
    expect([...types].sort()).toEqual([...SPEC_INTERNAL, ...SPEC_PUBLIC].sort());
  });

  it('marks exactly startup, doc-change and heartbeat internal-only, and no internal type public', () => {
    expect(TASK_CATALOG.filter((e) => e.internalOnly).map((e) => e.type).sort()).toEqual([...SPEC_INTERNAL].sort());
    for (const entry of TASK_CATALOG) {
      expect(entry.internalOnly).toBe(SPEC_INTERNAL.includes(entry.type));
      expect(entry.publicTriggerable).toBe(!entry.internalOnly);
    }
  });

  it('gates build-refactor and agent-deploy on approval by default, nothing else', () => {
    const gated = TASK_CATALOG.filter((e) => e.approvalGated).map((e) => e.type);
    expect(gated.sort()).toEqual(['agent-deploy', 'build-refactor']);
  });

  it('names the agent of every lane from the spec agent catalog, and none for handlers', () => {
    for (const entry of TASK_CATALOG) {
      expect(entry.agentId, entry.type).toBe(SPEC_AGENTS[entry.type] ?? null);
    }
  });

  it('public catalog excludes the internal types and keeps every public one', () => {
    const listed = publicCatalog().map((e) => e.type);
    expect(listed.sort()).toEqual([...SPEC_PUBLIC].sort());
    for (const type of SPEC_INTERNAL) expect(listed).not.toContain(type);
  });

  it('labels summarize-content honestly as a confirmed-working worker lane of summarization-agent', () => {
    const entry = getCatalogEntry('summarize-content')!;
    expect(entry).toMatchObject({
      executor: 'worker',
      agentId: 'summarization-agent',
      operationalStatus: 'confirmed-working',
      toolGatePreflight: true,
    });
  });

  it('runs exactly the in-process types as handlers, each with a registered handler', () => {
    const handlers = TASK_CATALOG.filter((e) => e.executor === 'handler').map((e) => e.type);
    expect(handlers.sort()).toEqual([...HANDLER_TYPES, ...BUSINESS_TYPES].sort());
    const coreLanes = coreHandlerLanes({ config: testConfig(), serviceStartedAt: new Date(), queueDepth: async () => 0 });
    expect(coreLanes.map((lane) => lane.type).sort()).toEqual(HANDLER_TYPES.filter((t) => !KNOWLEDGE_TYPES.includes(t)).sort());
    expect([...BUSINESS_HANDLER_TYPES].sort()).toEqual([...BUSINESS_TYPES].sort());
  });

  it('ships an entrypoint for every worker lane, so each is marked working', () => {
    const registry = loadAgentRegistry(AGENTS_DIR);
    for (const entry of TASK_CATALOG.filter((e) => e.executor === 'worker' && e.agentId !== null)) {
      const agent = registry.forLane(entry.type);
      expect(agent?.id, entry.type).toBe(entry.agentId);
      expect(agent?.entrypoint, entry.type).toBeTruthy();
      expect(entry.operationalStatus, entry.type).not.toBe('unconfirmed');
    }
    for (const type of BUSINESS_TYPES) {
      expect(getCatalogEntry(type)!.operationalStatus).toBe('confirmed-working');
    }
  });

  it('marks the network-bound handlers externally dependent and the local ones confirmed working', () => {
    expect(getCatalogEntry('rss-sweep')).toMatchObject({ operationalStatus: 'externally-dependent', dependencyClass: 'external' });
    expect(getCatalogEntry('send-digest')).toMatchObject({ operationalStatus: 'externally-dependent', dependencyClass: 'external' });
    for (const type of ['startup', 'heartbeat', 'doc-sync', 'doc-change', 'agent-deploy', 'nightly-batch']) {
      expect(getCatalogEntry(type)!.operationalStatus, type).toBe('confirmed-working');
    }
  });

  it('takes tool-gate preflight from the spec task table', () => {
    for (const type of ['control-plane-brief', 'incident-triage', 'release-readiness', 'build-refactor', 'security-audit', 'autonomous-work-cycle']) {
      expect(getCatalogEntry(type)!.toolGatePreflight, type).toBe(true);
    }
    for (const type of ['doc-sync', 'drift-repair', 'community-response', 'agent-deploy', 'rss-sweep', 'nightly-batch', 'send-digest']) {
      expect(getCatalogEntry(type)!.toolGatePreflight, type).toBe(false);
    }
  });

  it('declares the workspace path fields of the scoped lanes', () => {
    expect(getCatalogEntry('security-audit')!.scopeFields).toContain('scope');
    expect(getCatalogEntry('build-refactor')!.scopeFields).toEqual(expect.arrayContaining(['scope', 'changes[].path']));
    expect(getCatalogEntry('qa-verification')!.scopeFields).toContain('target');
    expect(getCatalogEntry('drift-repair')!.scopeFields).toContain('paths');
  });

  it('marks the spec\'s manual remediation lanes, which the incident route and the console offer', () => {
    const marked = TASK_CATALOG.filter((e) => e.remediation).map((e) => e.type);
    expect([...marked].sort()).toEqual(['build-refactor', 'drift-repair', 'qa-verification', 'system-monitor']);
    expect(REMEDIATION_TASK_TYPES).toEqual(marked);
    // published by the catalog route, where the console reads them
    expect(publicCatalog().filter((e) => e.remediation).map((e) => e.type)).toEqual(marked);
  });

  it('has a payload schema for every type and nothing else', () => {
    expect(Object.keys(PAYLOAD_SCHEMAS).sort()).toEqual(TASK_CATALOG.map((e) => e.type).sort());
  });

  it('renders the spec classification labels', () => {
    expect(classificationLabels(getCatalogEntry('agent-deploy')!)).toEqual([
      'public-triggerable',
      'approval-gated',
      'confirmed working',
    ]);
    expect(classificationLabels(getCatalogEntry('heartbeat')!)).toEqual(['internal-only', 'confirmed working']);
    expect(classificationLabels(getCatalogEntry('autonomous-work-cycle')!)).toEqual(['public-triggerable', 'confirmed working']);
  });

  it('returns undefined for an unknown type', () => {
    expect(getCatalogEntry('no-such-task')).toBeUndefined();
  });
});
