import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { laneResult, payloadSchema, text } from '../../task-types/schema-kit.js';

/** The community-response task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const communityResponseType = defineTaskType({
  type: 'community-response',
  label: 'Community response',
  purpose: 'Drafts replies from the latest knowledge pack for queue items selected for drafting.',
  agentId: 'community-helper',
  executor: 'worker',
  retryable: true,
  // What the nightly batch queues for each selected lead (src/lanes/nightly-batch/handler.ts).
  roles: ['drafts-community-replies'],
  dependencyRequirements: ['a knowledge pack (<knowledgePackDir>/latest.json, written by drift-repair)'],
  caveats: [
    'Drafts only items with selectedForDraft=true; each item is drafted once per dedupe window and within the daily LLM budget, both claimed through shared coordination before the spawn.',
    'Drafts are deterministic and unmetered (no provider); nothing is posted, drafts wait for a human.',
  ],
  highRiskWhenApproved: true,
  payloadSchema: payloadSchema('Draft community replies; only items with selectedForDraft true are drafted.', {
    source: Type.Optional(text('What queued the item, e.g. nightly-batch.', { maxLength: 100 })),
    itemUrl: Type.Optional(text('URL of the lead being answered.', { maxLength: 2048 })),
    itemTitle: Type.Optional(text('Title of the lead.', { maxLength: 500 })),
    selectedForDraft: Type.Optional(Type.Boolean({ description: 'The item is cleared for drafting.' })),
    reviewReason: Type.Optional(
      Type.Enum(['manual-review', 'promotion'], { description: 'Why the item was routed through an approval.' }),
    ),
    items: Type.Optional(
      Type.Array(
        Type.Object(
          {},
          {
            additionalProperties: true,
            description:
              'One lead: title (or postTitle/itemTitle), body (or question/content), url (or itemUrl), postId, subcommunity, selectedForDraft; items naming none of title, body, url and postId are skipped.',
          },
        ),
        { maxItems: 100, description: 'Several leads in one run, instead of the single lead the top-level fields describe.' },
      ),
    ),
  }, { itemUrl: 'https://forum.example.com/t/queue-retries/42', itemTitle: 'How do retries work?', selectedForDraft: true }),
  resultSchema: laneResult('Community response result.', {}),
});
