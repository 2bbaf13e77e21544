import { defineTaskType } from '../../task-types/define-task-type.js';
import { handlerResult, payloadSchema } from '../../task-types/schema-kit.js';

/** The rss-sweep task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const rssSweepType = defineTaskType({
  type: 'rss-sweep',
  label: 'RSS sweep',
  purpose: 'Fetches the configured RSS/Atom feeds, scores each entry for relevance and urgency and records new drafts.',
  agentId: null,
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
  payloadSchema: payloadSchema('No fields: feeds come from the file at config rssConfigPath.', {}),
  resultSchema: handlerResult('RSS sweep result.', {}),
});
