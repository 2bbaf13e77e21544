import Type from 'typebox';
import type { ProtectedContext, RouteSpec } from '../route-spec.js';

const Identity = Type.Object({
  actor: Type.String({ description: 'the key label without its :version suffix' }),
  role: Type.Union([Type.Literal('viewer'), Type.Literal('operator'), Type.Literal('admin')]),
  apiKeyLabel: Type.String(),
  apiKeyExpiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

/** GET /api/auth/me: who the bearer key says the caller is. Never returns the key itself. */
export function authRoutes(): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/api/auth/me',
      operationId: 'getAuthIdentity',
      summary: 'The identity behind the bearer key',
      tags: ['auth'],
      access: { kind: 'protected', role: 'viewer', bucket: 'viewer-read' },
      schema: { response: { 200: Identity } },
      handler: async ({ identity }: ProtectedContext) => ({
        body: {
          actor: identity.actor,
          role: identity.role,
          apiKeyLabel: identity.apiKeyLabel,
          apiKeyExpiresAt: identity.apiKeyExpiresAt,
        },
      }),
    },
  ];
}
