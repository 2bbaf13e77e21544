import Type, { type Static } from 'typebox';
import { DEFAULT_TOKEN_MINUTES, MAX_TOKEN_MINUTES, type TokenRecord, type TokenService } from '../../tokens/scoped-tokens.js';
import { operatorRead, operatorWrite, routeFamily, type ProtectedContext, type RouteSpec } from '../route-spec.js';
import { MAX_TAG_LENGTH, TAG_PATTERN } from '../../domain/run-tags.js';

const Id = Type.String({ minLength: 1, maxLength: 400 });
const Scope = Type.Union([
  Type.Object({ kind: Type.Literal('run'), runId: Id }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('flow'), flowId: Id }, { additionalProperties: false }),
  Type.Object(
    { kind: Type.Literal('tag'), tag: Type.String({ minLength: 1, maxLength: MAX_TAG_LENGTH, pattern: TAG_PATTERN }) },
    { additionalProperties: false, description: 'the runs carrying this tag: each run and its event stream, and GET /api/tasks/runs?tag=<tag>' },
  ),
  Type.Object({ kind: Type.Literal('read') }, { additionalProperties: false }),
]);

const TokenBody = Type.Object(
  {
    scope: Scope,
    expiresInMinutes: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TOKEN_MINUTES, description: `default ${DEFAULT_TOKEN_MINUTES}` })),
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

const TokenView = Type.Object({
  tokenId: Type.String(),
  scope: Scope,
  label: Type.Union([Type.String(), Type.Null()]),
  issuedBy: Type.String(),
  issuedAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time' }),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  revokedBy: Type.Union([Type.String(), Type.Null()]),
});

const Issued = Type.Intersect([TokenView, Type.Object({ token: Type.String({ description: 'shown once; send as Authorization: Bearer, or as access_token on an event stream' }) })]);
const TokenParams = Type.Object({ tokenId: Type.String({ minLength: 1, maxLength: 100 }) });

const view = (record: TokenRecord) => ({ ...record });

/** Scoped read tokens for browsers (docs/tokens.md): issue, list and revoke, by operators. */
export function tokenRoutes(deps: { tokens: TokenService }): RouteSpec[] {
  const { tokens } = deps;
  const operatorReads = routeFamily({ tags: ['auth'], access: operatorRead });
  const writes = routeFamily({ tags: ['auth'], access: operatorWrite });
  return [
    writes.post('/api/tokens', {
      operationId: 'issueToken',
      summary: 'Issue a short-lived viewer token scoped to one run, one flow, the runs with one tag, or every viewer read (201; the token is shown once)',
      description: `The token reads only what its scope names (its record, its event stream), never writes, and expires after \`expiresInMinutes\` (default ${DEFAULT_TOKEN_MINUTES}, at most ${MAX_TOKEN_MINUTES}). A token cannot issue tokens.`,
      schema: { body: TokenBody, response: { 201: Issued } },
      handler: async (ctx: ProtectedContext<unknown, unknown, Static<typeof TokenBody>>) => ({
        statusCode: 201,
        body: await tokens.issue(ctx.identity, ctx.body),
      }),
    }),
    operatorReads.get('/api/tokens', {
      operationId: 'listTokens',
      summary: 'Tokens not yet expired, newest first, revoked ones marked (never the tokens themselves)',
      schema: { response: { 200: Type.Object({ tokens: Type.Array(TokenView) }) } },
      handler: async () => ({ body: { tokens: (await tokens.list()).map(view) } }),
    }),
    writes.delete('/api/tokens/:tokenId', {
      operationId: 'revokeToken',
      summary: 'Revoke a token on every instance at once (revoking one already revoked answers it unchanged)',
      schema: { params: TokenParams, response: { 200: TokenView } },
      handler: async (ctx: ProtectedContext<unknown, Static<typeof TokenParams>>) => ({
        body: view(await tokens.revoke(ctx.params.tokenId, ctx.identity)),
      }),
    }),
  ];
}
