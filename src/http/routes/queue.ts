import Type from 'typebox';
import { adminWrite, routeFamily, viewerRead, type RouteSpec } from '../route-spec.js';
import type { TaskRuntime } from '../../runtime/runtime.js';

const QueuePriorities = Type.Array(
  Type.Object({
    priority: Type.Integer({ minimum: 1, maximum: 5, description: 'the priority runs were triggered with (aging not counted)' }),
    waiting: Type.Integer(),
    oldestWaitSeconds: Type.Number({ description: 'how long its oldest waiting run has waited' }),
  }),
  { description: 'waiting runs by priority, the highest first; only priorities with a waiting run' },
);

const QueueKey = Type.Object({
  key: Type.Union([Type.String(), Type.Null()], { description: 'the concurrency key; null: unkeyed runs' }),
  running: Type.Integer(),
  waiting: Type.Integer(),
  oldestWaitSeconds: Type.Union([Type.Number(), Type.Null()], { description: 'how long its oldest waiting run has waited; null when none waits' }),
  byPriority: QueuePriorities,
});

const QueueReply = Type.Object({
  at: Type.String({ format: 'date-time' }),
  running: Type.Integer(),
  waiting: Type.Integer(),
  notBefore: Type.Integer({ description: 'of the waiting runs, those whose not-before time (a trailing debounce window end) has not come' }),
  priorities: QueuePriorities,
  buckets: Type.Array(
    Type.Object({
      name: Type.String(),
      match: Type.Object({}, { additionalProperties: true }),
      concurrency: Type.Union([Type.Integer(), Type.Null()]),
      perKey: Type.Union([Type.Integer(), Type.Null()]),
      rate: Type.Union([Type.Object({ max: Type.Integer(), windowSeconds: Type.Integer() }), Type.Null()]),
      running: Type.Integer(),
      waiting: Type.Integer(),
      priorities: QueuePriorities,
      keys: Type.Array(QueueKey),
    }),
  ),
  keys: Type.Array(QueueKey, { description: 'the whole queue by concurrency key, the longest waiting first' }),
});

const BucketConfig = Type.Object({
  name: Type.String(),
  match: Type.Object({}, { additionalProperties: true }),
  concurrency: Type.Optional(Type.Integer()),
  perKey: Type.Optional(Type.Integer()),
  rate: Type.Optional(Type.Object({ max: Type.Integer(), windowSeconds: Type.Integer() })),
});

const ReloadReply = Type.Object({
  added: Type.Array(Type.String(), { description: 'bucket names new in the file' }),
  removed: Type.Array(Type.String(), { description: 'bucket names no longer in it' }),
  changed: Type.Array(Type.String(), { description: 'buckets whose match or caps changed' }),
  unchanged: Type.Array(Type.String()),
  limits: Type.Array(BucketConfig, { description: 'the limits now in force, in config order' }),
});

/** The queue by limit bucket and concurrency key, and the reload of the limits (docs/queue.md). */
export function queueRoutes(deps: { runtime: Pick<TaskRuntime, 'queue' | 'reloadLimits'> }): RouteSpec[] {
  const reads = routeFamily({ tags: ['tasks'], access: viewerRead });
  const adminWrites = routeFamily({ tags: ['tasks'], access: adminWrite });
  return [
    reads.get('/api/queue', {
      operationId: 'getQueue',
      summary: 'Limit buckets with their running and waiting runs by concurrency key and priority, and the whole queue by key and priority',
      schema: { response: { 200: QueueReply } },
      handler: async () => ({ body: await deps.runtime.queue() }),
    }),
    adminWrites.post('/api/limits/reload', {
      operationId: 'reloadLimits',
      summary: 'Re-read config `limits` from the config file on this instance, without a restart (SIGHUP does the same)',
      description:
        'The new caps apply from the next claim: waiting runs are neither lost nor run twice (the caps count the runs themselves). A config file that does not load answers 409 and changes nothing. Per instance: every instance of a fleet is reloaded itself.',
      schema: { response: { 200: ReloadReply } },
      handler: async () => ({ body: deps.runtime.reloadLimits() }),
    }),
  ];
}
