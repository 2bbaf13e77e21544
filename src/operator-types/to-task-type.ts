import type { TSchema } from 'typebox';
import { defineTaskType } from '../task-types/define-task-type.js';
import type { ResultViewSpec } from '../task-types/result-view.js';
import { COMMON_FIELDS } from '../task-types/schema-kit.js';
import type { TaskType } from '../task-types/task-type.js';
import type { OperatorManifest } from './manifest.js';

/** The agent id every operator type runs under: the program worker (src/operator-types/program-worker.ts). */
export const OPERATOR_AGENT_ID = 'operator-programs';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The payload schema admission checks: the manifest's, with the service's own fields
 * (`idempotencyKey`, `requiresApproval`) added to its properties, so a schema that refuses
 * additional properties never refuses them and they are checked as on every built-in type.
 */
function payloadSchemaOf(m: OperatorManifest): TSchema {
  const schema = structuredClone(m.payloadSchema);
  const properties = isRecord(schema.properties) ? schema.properties : {};
  return { ...schema, properties: { ...structuredClone(COMMON_FIELDS), ...properties } } as TSchema;
}

/**
 * The result schema finalize checks: the manifest's (an open object when it has none), with the
 * `success` flag the worker protocol carries (src/operator-types/run-program.ts adds it to
 * a result that leaves it out), so a schema that refuses additional properties still passes it.
 */
function resultSchemaOf(m: OperatorManifest): TSchema {
  const schema = structuredClone(m.resultSchema ?? { type: 'object' });
  const properties = isRecord(schema.properties) ? schema.properties : {};
  return { ...schema, properties: { success: { type: 'boolean' }, ...properties } } as TSchema;
}

/**
 * An operator's manifest as the service's task type: a worker type run by the program worker,
 * `source: "operator"`, so the catalog, OpenAPI, admission and the console derive from it as
 * from a built-in type.
 */
export function operatorTaskType(m: OperatorManifest, directory: string): TaskType {
  const defined = defineTaskType({
    type: m.type,
    label: m.label,
    purpose: m.purpose,
    agentId: OPERATOR_AGENT_ID,
    executor: 'worker',
    approvalGated: m.approvalGated ?? false,
    retryable: m.retryable ?? false,
    scopeFields: m.scopeFields ?? [],
    // An operator's program is whatever its folder holds: nothing in this build vouches for it.
    operationalStatus: 'unconfirmed',
    baselineConfidence: 'low',
    affectedSurfaces: m.network ? ['network'] : [],
    payloadSchema: payloadSchemaOf(m),
    resultSchema: resultSchemaOf(m),
    resultView: (m.resultView ?? {}) as ResultViewSpec,
    model: { tier: m.model?.tier ?? 'none' },
    source: 'operator',
  });
  return Object.freeze({
    ...defined,
    // Its requirement is its own folder and command, not an agent of agents/.
    dependencyRequirements: [`its folder ${directory} and the command ${JSON.stringify(m.command)}`],
  });
}
