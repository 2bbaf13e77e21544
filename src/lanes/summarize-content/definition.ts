import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { laneResult, payloadSchema, text } from '../../task-types/schema-kit.js';

/** The summarize-content task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const summarizeContentType = defineTaskType({
  type: 'summarize-content',
  label: 'Summarize content',
  purpose: 'Summarizes supplied content as an executive summary or bullets.',
  agentId: 'summarization-agent',
  toolGatePreflight: true,
  executor: 'worker',
  baselineConfidence: 'high',
  retryable: true,
  plannerSafe: true,
  payloadSchema: payloadSchema('Summarize supplied content.', {
    sourceType: Type.Optional(text('What the content is, e.g. report.', { maxLength: 100 })),
    content: text('The text to summarize.', { minLength: 1, maxLength: 524_288 }),
    format: Type.Optional(
      Type.Enum(['executive_summary', 'bullets'], { description: 'Summary shape (default executive_summary).' }),
    ),
    maxSentences: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 50, description: 'Most sentences the summary keeps (default: scaled to the length of the content).' }),
    ),
  }, {
    content: 'The deploy finished at noon. Two services restarted cleanly. The queue drained within five minutes and no run failed.',
    format: 'bullets',
  }),
  resultSchema: laneResult('Summary result: the summary and its bullets.', {
    summary: Type.Optional(Type.String()),
    bullets: Type.Optional(Type.Array(Type.String())),
  }),
  resultView: {
    text: {
      markdown: '/summary',
      bullets: '/bullets',
      facts: [
        { label: 'topic', value: '/topic' },
        { label: 'format', value: '/format' },
        { label: 'words', value: '/wordCount' },
        { label: 'sentences kept', value: '/selectedSentenceCount' },
        { label: 'compression', value: '/compressionRatio', format: 'percent' },
        { label: 'keywords', value: '/keywords', format: 'list' },
      ],
    },
  },
  skills: ['text-summarize'],
});
