import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { configError } from '../config/errors.js';

/**
 * The shape of `agents/<agent-id>/agent.config.json`. Unknown keys are rejected so that a typo
 * (`serviceUnit` for `serviceUnitName`) fails at start-up instead of silently reading as null.
 */
export const AgentManifestSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z0-9][a-z0-9-]*$' }),
    name: Type.String({ minLength: 1 }),
    description: Type.String({ minLength: 1 }),
    lanes: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, uniqueItems: true }),
    lifecycleMode: Type.Union([Type.Literal('worker-first'), Type.Literal('service-expected')]),
    serviceExpected: Type.Boolean(),
    serviceUnitName: Type.Union([Type.String({ pattern: '^[A-Za-z0-9@._-]+\\.service$' }), Type.Null()]),
    entrypoint: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 100 })),
    orchestratorStatePath: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
    serviceStatePath: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
    allowedSkills: Type.Array(Type.String({ minLength: 1 }), { uniqueItems: true }),
    model: Type.Object(
      {
        tier: Type.Union([Type.Literal('local'), Type.Literal('standard'), Type.Literal('advanced')]),
        provider: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
        name: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export type AgentManifest = Static<typeof AgentManifestSchema>;
export type LifecycleMode = AgentManifest['lifecycleMode'];
export type ModelTier = AgentManifest['model']['tier'];

const validator = Compile(AgentManifestSchema);

/**
 * Rules the schema cannot express: the lifecycle fields must tell one story (a service-expected
 * agent has a unit and a heartbeat file, a worker-first agent has neither), and an entrypoint
 * must stay inside the agent's own directory.
 */
function consistencyProblems(m: AgentManifest, directoryName: string): string[] {
  const problems: string[] = [];
  if (m.id !== directoryName) problems.push(`id "${m.id}" does not match its directory "${directoryName}"`);
  const serviceMode = m.lifecycleMode === 'service-expected';
  if (m.serviceExpected !== serviceMode) {
    problems.push(`serviceExpected must be ${serviceMode} when lifecycleMode is ${m.lifecycleMode}`);
  }
  if (serviceMode && m.serviceUnitName === null) problems.push('a service-expected agent needs a serviceUnitName');
  if (serviceMode && m.serviceStatePath === null) problems.push('a service-expected agent needs a serviceStatePath');
  if (!serviceMode && m.serviceUnitName !== null) problems.push('a worker-first agent has no serviceUnitName');
  if (!serviceMode && m.serviceStatePath !== null) {
    problems.push('a worker-first agent has no serviceStatePath (only resident services keep heartbeat memory)');
  }
  if (m.entrypoint !== null) {
    const segments = m.entrypoint.split(/[\\/]/);
    if (m.entrypoint.startsWith('/') || /^[A-Za-z]:/.test(m.entrypoint) || segments.includes('..')) {
      problems.push(`entrypoint "${m.entrypoint}" must be a path inside the agent directory`);
    }
    if (!/\.(?:js|mjs|cjs)$/.test(m.entrypoint)) {
      problems.push(`entrypoint "${m.entrypoint}" must name a JavaScript file (.js, .mjs or .cjs)`);
    }
  }
  return problems;
}

/** Validates parsed manifest JSON; throws an `invalid_config` error naming the file and every problem found. */
export function parseAgentManifest(data: unknown, manifestPath: string, directoryName: string): AgentManifest {
  if (!validator.Check(data)) {
    // A union of literals reports once per member; one line per distinct problem is enough.
    const problems = [...new Set([...validator.Errors(data)].map((e) => `${e.instancePath || '/'} ${e.message}`))]
      .slice(0, 8)
      .join('; ');
    throw configError(`invalid agent manifest ${manifestPath}: ${problems}`);
  }
  const problems = consistencyProblems(data, directoryName);
  if (problems.length > 0) throw configError(`invalid agent manifest ${manifestPath}: ${problems.join('; ')}`);
  return data;
}
