import type { AppConfig } from '../config/types.js';
import { narrowConfig } from '../config/narrow.js';
import { bindHandler, bindStateHandler } from '../runtime/handler-types.js';
import type { LaneDefinition } from '../runtime/lanes.js';
import { agentDeploy, agentDeployAdmissionCheck } from './agent-deploy/handler.js';
import { heartbeat } from './heartbeat/handler.js';
import { nightlyBatch } from './nightly-batch/handler.js';
import { rssSweep, rssSweepAdmissionCheck } from './rss-sweep/handler.js';
import { sendDigest, sendDigestAdmissionCheck } from './send-digest/handler.js';
import { startup } from './startup/handler.js';
import { startupType } from './startup/definition.js';
import { heartbeatType } from './heartbeat/definition.js';
import { agentDeployType } from './agent-deploy/definition.js';
import { rssSweepType } from './rss-sweep/definition.js';
import { nightlyBatchType } from './nightly-batch/definition.js';
import { sendDigestType } from './send-digest/definition.js';

export interface CoreHandlerDeps {
  config: AppConfig;
  serviceStartedAt: Date;
  /** Runs waiting in the queue right now (ready + held), for the heartbeat. */
  queueDepth: () => Promise<number>;
}

/**
 * The in-process lanes of the task runtime itself, each bound to the part of the configuration
 * it uses. The knowledge lanes (doc-sync, doc-change) register from src/knowledge/compose.ts and
 * the business lanes from src/business/module.ts; the lane registry checks at start that every
 * catalog entry with executor `handler` has exactly one handler. A lane whose setting or
 * template can be checked before it runs registers that check too (`admissionCheck`).
 */
export function coreHandlerLanes(deps: CoreHandlerDeps): LaneDefinition[] {
  const { config } = deps;
  // One narrow copy per lane: its handler and its admission check read the same settings.
  const deploy = narrowConfig(config, ['workspaceRoot', 'agentsDir', 'deployBaseDir']);
  const rss = narrowConfig(config, ['rssConfigPath', 'rssAllowPrivateHosts', 'logsDir', 'workspaceRoot']);
  const digest = narrowConfig(config, ['digestTargetUrl', 'digestTargetAllowPrivateHosts', 'digestTargetFile', 'workspaceRoot', 'logsDir']);
  return [
    { type: startupType.type, handler: bindStateHandler(startup, narrowConfig(config, ['fastStart', 'docsPath', 'workspaceRoot', 'logsDir'])) },
    { type: heartbeatType.type, handler: bindHandler(heartbeat, { serviceStartedAt: deps.serviceStartedAt, queueDepth: deps.queueDepth }) },
    { type: agentDeployType.type, handler: bindStateHandler(agentDeploy, deploy), admissionCheck: agentDeployAdmissionCheck(deploy) },
    { type: rssSweepType.type, handler: bindStateHandler(rssSweep, rss), admissionCheck: rssSweepAdmissionCheck(rss) },
    { type: nightlyBatchType.type, handler: bindStateHandler(nightlyBatch, null) },
    { type: sendDigestType.type, handler: bindHandler(sendDigest, digest), admissionCheck: sendDigestAdmissionCheck(digest) },
  ];
}
