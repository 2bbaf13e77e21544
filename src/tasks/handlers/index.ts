import type { TaskHandler } from '../handler-types.js';
import { agentDeploy } from './agent-deploy.js';
import { docChange } from './doc-change.js';
import { docSync } from './doc-sync.js';
import { heartbeat } from './heartbeat.js';
import { nightlyBatch } from './nightly-batch.js';
import { rssSweep } from './rss-sweep.js';
import { sendDigest } from './send-digest.js';
import { startup } from './startup.js';

/**
 * The in-process handlers, by task type. Exactly the catalog entries with executor 'handler'
 * (a test holds the two together); every other type runs as a spawned worker.
 */
export const IN_PROCESS_HANDLERS: Record<string, TaskHandler> = {
  startup,
  heartbeat,
  'doc-change': docChange,
  'doc-sync': docSync,
  'agent-deploy': agentDeploy,
  'rss-sweep': rssSweep,
  'nightly-batch': nightlyBatch,
  'send-digest': sendDigest,
};
