import Type, { type Static } from 'typebox';
import { CacheTags } from '../../domain/cache-invalidation.js';
import type { ProofFeed } from '../../proof/proof-feed.js';
import { proofPublic, routeFamily, type RouteContext, type RouteSpec } from '../route-spec.js';

/**
 * Public proof routes: readable without a key, limited per IP by `proof-public`, cached (runs
 * and milestone writes invalidate them through their tags). Every body comes from
 * src/proof/proof-feed.ts, which publishes only allowlisted fields (docs/proof.md).
 */
const PROOF_TAGS = [CacheTags.proof, CacheTags.runs];
const LIVE_MAX_AGE_SECONDS = 5;

const LimitQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Most items to return (default 20).' })) },
  { additionalProperties: false },
);
type LimitQuery = Static<typeof LimitQuery>;

const Counts = (description: string) => Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description });

const PublicMilestone = Type.Object(
  {
    id: Type.String({ description: 'Public id (a hash; the stored milestone id stays private).' }),
    kind: Type.String({ description: 'startup, drift-repair or proof-delivery.' }),
    status: Type.String({ description: 'completed, at-risk, blocked or failed.' }),
    at: Type.String({ format: 'date-time' }),
    summary: Type.String({ description: 'A fixed sentence per kind and status.' }),
    filesAudited: Type.Optional(Type.Integer({ minimum: 0 })),
    driftDetected: Type.Optional(Type.Boolean()),
    knowledgePackVersion: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

const Queue = Type.Object({
  queued: Type.Integer({ minimum: 0 }),
  processing: Type.Integer({ minimum: 0 }),
  awaitingApproval: Type.Integer({ minimum: 0 }),
  retrying: Type.Integer({ minimum: 0 }),
});

const GeneratedAt = Type.String({ format: 'date-time' });

function proofRoute(
  path: string,
  operationId: string,
  summary: string,
  response: ReturnType<typeof Type.Object>,
  handler: (ctx: RouteContext<LimitQuery>) => Promise<unknown>,
  options: { limit?: boolean; maxAgeSeconds?: number; tags?: string[] } = {},
): RouteSpec {
  return routeFamily({ tags: options.tags ?? ['proof'], access: proofPublic }).get(path, {
    operationId,
    summary,
    cache: { tags: PROOF_TAGS, ...(options.maxAgeSeconds !== undefined ? { maxAgeSeconds: options.maxAgeSeconds } : {}) },
    schema: { ...(options.limit ? { querystring: LimitQuery } : {}), response: { 200: response } },
    handler: async (ctx: RouteContext<LimitQuery>) => ({ body: await handler(ctx) }),
  });
}

/** GET /api/command-center/* and /api/milestones/*: the public proof surface. */
export function proofRoutes(deps: { feed: ProofFeed }): RouteSpec[] {
  const { feed } = deps;
  return [
    proofRoute(
      '/api/command-center/overview',
      'getProofOverview',
      'Public proof overview: run counts, lane readiness, pending approvals, latest milestone',
      Type.Object({
        generatedAt: GeneratedAt,
        service: Type.Object({ status: Type.String(), lastStartedAt: Type.Optional(Type.String({ format: 'date-time' })) }),
        runs: Counts('Public (non-internal) runs by status, plus total.'),
        lanes: Counts('Catalog lanes by operational status, plus total.'),
        approvals: Type.Object({ pending: Type.Integer({ minimum: 0 }) }),
        milestones: Type.Object({
          total: Type.Integer({ minimum: 0 }),
          deadLetter: Type.Integer({ minimum: 0 }),
          latest: Type.Union([PublicMilestone, Type.Null()]),
        }),
      }),
      () => feed.overview(),
    ),
    proofRoute(
      '/api/command-center/control',
      'getProofControl',
      'Curated control-lane summary: each public lane with its status and run outcomes',
      Type.Object({
        generatedAt: GeneratedAt,
        laneCount: Type.Integer({ minimum: 0 }),
        lanes: Type.Array(
          Type.Object({
            type: Type.String(),
            label: Type.String(),
            operationalStatus: Type.String(),
            dependencyClass: Type.String(),
            approvalGated: Type.Boolean(),
            successRate: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
            runs: Counts('Runs of the lane by status, plus total.'),
          }),
        ),
      }),
      () => feed.control(),
    ),
    proofRoute(
      '/api/command-center/demand',
      'getProofDemand',
      'Demand summary: feed leads by urgency and selection, community drafts, queue, requests per lane (24 h)',
      Type.Object({
        generatedAt: GeneratedAt,
        leads: Counts('RSS leads: total, high, medium, low, selectedForDraft, awaitingReview.'),
        community: Type.Object({ drafts: Type.Integer({ minimum: 0 }), latestDraftAt: Type.Optional(Type.String({ format: 'date-time' })) }),
        queue: Queue,
        requestsLast24h: Type.Array(Type.Object({ type: Type.String(), count: Type.Integer({ minimum: 0 }) })),
      }),
      () => feed.demand(),
    ),
    proofRoute(
      '/api/command-center/demand-live',
      'getProofDemandLive',
      'Live demand snapshot: queue now and runs admitted, succeeded and failed in the last hour',
      Type.Object({
        generatedAt: GeneratedAt,
        queue: Queue,
        lastHour: Type.Object({ admitted: Type.Integer({ minimum: 0 }), succeeded: Type.Integer({ minimum: 0 }), failed: Type.Integer({ minimum: 0 }) }),
      }),
      () => feed.demandLive(),
      { maxAgeSeconds: LIVE_MAX_AGE_SECONDS },
    ),
    proofRoute(
      '/api/milestones/latest',
      'getLatestMilestones',
      'Latest milestone feed, newest first (startup, drift-repair, proof delivery)',
      Type.Object({ generatedAt: GeneratedAt, count: Type.Integer(), total: Type.Integer(), milestones: Type.Array(PublicMilestone) }),
      (ctx) => feed.milestonesLatest(ctx.query.limit ?? 20),
      { limit: true, tags: ['milestones'] },
    ),
    proofRoute(
      '/api/milestones/dead-letter',
      'getDeadLetterMilestones',
      'Blocked, at-risk or failed proof items, newest first',
      Type.Object({ generatedAt: GeneratedAt, count: Type.Integer(), total: Type.Integer(), items: Type.Array(PublicMilestone) }),
      (ctx) => feed.deadLetter(ctx.query.limit ?? 20),
      { limit: true, tags: ['milestones'] },
    ),
  ];
}
