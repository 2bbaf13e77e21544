import Type from 'typebox';
import { PlacementFields } from '../runtime/placement-schema.js';
import { TagsField } from '../runtime/tags-schema.js';
import { DEPENDENCY_FAILURE_POLICIES, FLOW_NAME_PATTERN, MAX_FLOW_STEPS } from './flow-definition.js';

/**
 * The words of a flow's steps as a request body holds them: the flow route and a schedule that
 * fires a flow (docs/schedules.md) validate and document them with the same schema.
 */

export const FlowName = (description: string) => Type.String({ pattern: FLOW_NAME_PATTERN, description });

const Policy = Type.Union(
  DEPENDENCY_FAILURE_POLICIES.map((p) => Type.Literal(p)),
  { description: 'when a dependency did not succeed: `fail` (default) skips the step and fails the flow, `skip` skips it and the flow goes on, `run` runs it anyway' },
);

export const FlowStepSchema = Type.Object(
  {
    key: FlowName('the step\'s name in the flow; its run id is `flow:<flowId>:<key>`'),
    type: Type.String({ minLength: 1, maxLength: 200, description: 'a task type of the catalog' }),
    payload: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'checked as a trigger\'s payload' })),
    dependsOn: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: MAX_FLOW_STEPS })),
    onDependencyFailure: Type.Optional(Policy),
    ...PlacementFields,
    ...TagsField,
  },
  { additionalProperties: false },
);

// The bound itself is checked by the flows module, which names the step one too many.
export const FlowStepsSchema = Type.Array(FlowStepSchema, { minItems: 1 });
