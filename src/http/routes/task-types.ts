import Type from 'typebox';
import type { TaskTypeReload } from '../../operator-types/reload.js';
import { adminWrite, routeFamily, type RouteSpec } from '../route-spec.js';

const TypeNames = (description: string) => Type.Array(Type.String(), { description });

const ReloadAnswer = Type.Object(
  {
    added: TypeNames('types new in the folder, triggerable on this instance from now on'),
    changed: TypeNames('types whose manifest or program files changed: runs admitted from now on use the new ones, runs admitted before keep theirs (a snapshot of the program)'),
    removed: TypeNames('types no longer in the folder: not triggerable; runs already admitted still finish'),
    unchanged: TypeNames('types whose manifest and program files are as they were'),
    refused: Type.Array(
      Type.Object({ folder: Type.String(), message: Type.String({ description: 'names the manifest file and the field' }) }, { additionalProperties: false }),
      { description: 'folders whose manifest (or program folder: a link, too many files) was refused; a type such a folder had before keeps its previous manifest' },
    ),
  },
  { additionalProperties: false },
);

/** `POST /api/task-types/reload` (docs/task-types.md, "Write your own task type"). */
export function taskTypeRoutes(deps: { taskTypes: TaskTypeReload }): RouteSpec[] {
  return [
    routeFamily({ tags: ['tasks'], access: adminWrite }).post('/api/task-types/reload', {
      operationId: 'reloadTaskTypes',
      summary: 'Re-read the operator task types folder (taskTypesDir) on this instance, without a restart',
      description:
        'Per instance: every instance sharing a store reads its own folder and must be reloaded itself; one that has not refuses a new type as unknown. Runs already admitted keep the manifest and the program snapshot they were admitted with. Manifest run limits (concurrency) apply from the next claim; added types get their own metrics label.',
      schema: { response: { 200: ReloadAnswer } },
      handler: async () => ({ body: await deps.taskTypes.reload() }),
    }),
  ];
}
