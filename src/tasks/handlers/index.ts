import type { AppConfig } from '../../config/types.js';
import { narrowConfig } from '../../config/narrow.js';
import { bindHandler, bindStateHandler } from '../handler-types.js';
import type { LaneDefinition } from '../lanes.js';
import { agentDeploy, agentDeployAdmissionCheck } from './agent-deploy.js';
import { heartbeat } from './heartbeat.js';
import { nightlyBatch } from './nightly-batch.js';
import { rssSweep, rssSweepAdmissionCheck } from './rss-sweep.js';
import { sendDigest, sendDigestAdmissionCheck } from './send-digest.js';
import { startup } from './startup.js';

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
    { type: 'startup', handler: bindStateHandler(startup, narrowConfig(config, ['fastStart', 'docsPath', 'workspaceRoot', 'logsDir'])) },
    { type: 'heartbeat', handler: bindHandler(heartbeat, { serviceStartedAt: deps.serviceStartedAt, queueDepth: deps.queueDepth }) },
    { type: 'agent-deploy', handler: bindStateHandler(agentDeploy, deploy), admissionCheck: agentDeployAdmissionCheck(deploy) },
    { type: 'rss-sweep', handler: bindStateHandler(rssSweep, rss), admissionCheck: rssSweepAdmissionCheck(rss) },
    { type: 'nightly-batch', handler: bindStateHandler(nightlyBatch, null) },
    { type: 'send-digest', handler: bindHandler(sendDigest, digest), admissionCheck: sendDigestAdmissionCheck(digest) },
  ];
}
