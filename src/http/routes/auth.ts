import Type from 'typebox';
import { routeFamily, viewerRead, type ProtectedContext, type RouteSpec } from '../route-spec.js';

const Identity = Type.Object({
  actor: Type.String({ description: 'the key label without its :version suffix' }),
  role: Type.Union([Type.Literal('viewer'), Type.Literal('operator'), Type.Literal('admin')]),
  apiKeyLabel: Type.String(),
  apiKeyExpiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  groups: Type.Array(Type.String(), { description: 'approver groups of the key (API_KEY_ROTATION groups)' }),
  credential: Type.Union([Type.Literal('api-key'), Type.Literal('token')]),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'when the key or token stops working' }),
  token: Type.Optional(
    Type.Object({
      tokenId: Type.String(),
      scope: Type.Object({ kind: Type.String() }, { additionalProperties: true }),
      issuedBy: Type.String(),
    }),
  ),
});

/** GET /api/auth/me: who the bearer key or scoped token says the caller is. Never returns either. */
export function authRoutes(): RouteSpec[] {
  return [
    routeFamily({ tags: ['auth'], access: viewerRead }).get('/api/auth/me', {
      operationId: 'getAuthIdentity',
      summary: 'The identity behind the bearer key',
      schema: { response: { 200: Identity } },
      // Open to every token whatever its scope: a browser holding one asks what it may do.
      tokenReads: () => ({ kind: 'self' }),
      handler: async ({ identity }: ProtectedContext) => ({
        body: {
          actor: identity.actor,
          role: identity.role,
          apiKeyLabel: identity.apiKeyLabel,
          apiKeyExpiresAt: identity.apiKeyExpiresAt,
          groups: [...(identity.groups ?? [])],
          credential: identity.token ? 'token' : 'api-key',
          expiresAt: identity.apiKeyExpiresAt,
          ...(identity.token ? { token: identity.token } : {}),
        },
      }),
    }),
  ];
}
