import Type from 'typebox';
import { Compile } from 'typebox/compile';
import { parseJsonWithinBounds } from '../../domain/json-bounds.js';
import { AlertmanagerBody } from '../../incidents/alertmanager.js';
import type { IncidentService } from '../../incidents/service.js';
import { HttpError } from '../errors.js';
import { invalidJsonBody } from '../json-body.js';
import { routeFamily, signedIngest, type RouteContext, type RouteSpec } from '../route-spec.js';
import { validationDetails } from '../validation.js';

const checkBody = Compile(AlertmanagerBody);

const headerOf = (ctx: RouteContext, name: string): string | undefined => {
  const value = ctx.request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const invalidSignature = () =>
  new HttpError('invalid_signature', 'The alert delivery is not correctly signed (missing, invalid, stale or replayed signature); nothing was ingested');

/**
 * The signed alert ingest. Order: signature over the raw body, then replay refusal, and only then
 * is the body parsed, held to the depth and size bounds and validated; an unsigned request learns
 * nothing about the body.
 */
export function webhookRoutes(deps: { incidents: IncidentService }): RouteSpec[] {
  return [
    routeFamily({ tags: ['incidents'], access: signedIngest }).post('/webhook/alerts', {
      operationId: 'ingestAlerts',
      summary: 'Alertmanager webhook: firing alerts open or update incidents (by fingerprint), resolved alerts resolve them',
      description: 'HMAC-SHA256 with WEBHOOK_SECRET over `<X-Orchestrator-Timestamp>.<raw body>`; see docs/incidents.md.',
      schema: {
        body: AlertmanagerBody,
        response: {
          200: Type.Object({
            status: Type.Literal('accepted'),
            received: Type.Integer(),
            incidents: Type.Array(Type.Object({ fingerprint: Type.String(), incidentId: Type.String(), change: Type.String(), status: Type.String() })),
          }),
        },
      },
      handler: async (ctx: RouteContext<unknown, unknown, unknown, null>) => {
        const rawBody = typeof ctx.body === 'string' ? ctx.body : '';
        const check = await deps.incidents.checkAlertDelivery({
          rawBody,
          signature: headerOf(ctx, 'x-orchestrator-signature'),
          timestamp: headerOf(ctx, 'x-orchestrator-timestamp'),
        });
        if (!check.ok) {
          ctx.request.log.warn({ reason: check.reason }, 'alert delivery refused');
          throw invalidSignature();
        }
        const parsed = parseJsonWithinBounds(rawBody, 'The request body');
        if (!parsed.ok) throw invalidJsonBody(parsed.problem);
        const body = parsed.value;
        if (!checkBody.Check(body)) {
          throw new HttpError('invalid_request', 'The request body is invalid', { details: validationDetails('body', [...checkBody.Errors(body)] as never) });
        }
        return { body: await deps.incidents.ingestAlerts(body) };
      },
    }),
  ];
}
