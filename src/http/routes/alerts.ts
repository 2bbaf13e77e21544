import Type, { type Static } from 'typebox';
import type { AlertService } from '../../alerts/service.js';
import { routeFamily, viewerRead, type ProtectedContext, type RouteSpec } from '../route-spec.js';

const ListQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) }, { additionalProperties: false });
type ListQueryType = Static<typeof ListQuery>;

const Delivery = Type.Object({
  deliveryId: Type.String(),
  noticeId: Type.String(),
  sink: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('dead')]),
  attempts: Type.Integer(),
  nextAttemptAt: Type.String(),
  lastError: Type.Union([Type.String(), Type.Null()]),
  deliveredAt: Type.Union([Type.String(), Type.Null()]),
  updatedAt: Type.String(),
});
const Notice = {
  noticeId: Type.String(),
  ruleId: Type.String(),
  subject: Type.String(),
  kind: Type.Union([Type.Literal('firing'), Type.Literal('resolved')]),
  severity: Type.String(),
  at: Type.String(),
  startsAt: Type.String(),
  endsAt: Type.Union([Type.String(), Type.Null()]),
  validUntil: Type.Union([Type.String(), Type.Null()]),
  summary: Type.String(),
  labels: Type.Record(Type.String(), Type.String()),
  sinks: Type.Array(Type.String()),
};
const AlertListSchema = Type.Object({ total: Type.Integer(), alerts: Type.Array(Type.Object({ ...Notice, deliveries: Type.Array(Delivery) })) });
const DeadLetterSchema = Type.Object({
  count: Type.Integer(),
  deadLetters: Type.Array(
    Type.Object({
      ...Delivery.properties,
      ruleId: Type.String(),
      subject: Type.String(),
      kind: Type.String(),
      summary: Type.String(),
      at: Type.String(),
    }),
  ),
});
const RulesSchema = Type.Object({ rules: Type.Array(Type.Unknown()), sinks: Type.Array(Type.Unknown()) });

/** Alerting's read side (docs/alerts.md): the configured rules, what fired and where it went, the dead letters. Uncached. */
export function alertRoutes(deps: { alerts: AlertService }): RouteSpec[] {
  const { alerts } = deps;
  const reads = routeFamily({ tags: ['alerts'], access: viewerRead });
  return [
    reads.get('/api/alerts', {
      operationId: 'listAlerts',
      summary: 'Alert notices, newest first: what fired or recovered, when, each sink it went to and whether delivery succeeded',
      schema: { querystring: ListQuery, response: { 200: AlertListSchema } },
      handler: async (ctx: ProtectedContext<ListQueryType>) => ({ body: await alerts.list(ctx.query.limit ?? 100) }),
    }),
    reads.get('/api/alerts/rules', {
      operationId: 'listAlertRules',
      summary: 'The configured alert rules and their sinks (kind and origin; never a secret)',
      schema: { response: { 200: RulesSchema } },
      handler: () => ({ body: alerts.rules() }),
    }),
    reads.get('/api/alerts/dead-letters', {
      operationId: 'listAlertDeadLetters',
      summary: 'Deliveries given up after their sink’s last retry, with the notice they carried',
      schema: { response: { 200: DeadLetterSchema } },
      handler: async () => ({ body: await alerts.deadLetters() }),
    }),
  ];
}
