import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script without type declarations
import { folderEdges, problems } from '../../scripts/folder-imports.mjs';

type Edges = Map<string, string[]>;
type Problem = { key: string; why: string };
const check = problems as (edges: Edges) => Problem[];

describe('folder imports against the layers (scripts/folder-imports.mjs, the lint step)', () => {
  it('finds no upward import, no worker SDK import of the service and no folder cycle in the tree', () => {
    expect(check((folderEdges as () => Edges)())).toEqual([]);
  });

  it('reports an import from a lower layer up, one from the worker SDK into the service, and a cycle', () => {
    const edges: Edges = new Map([
      ['runtime -> workers', ['src/runtime/x.ts imports ../workers/y.js']],
      ['worker-sdk -> store', ['src/worker-sdk/x.ts imports ../store/y.js']],
      ['knowledge -> business', ['src/knowledge/x.ts imports ../business/y.js']],
      ['business -> knowledge', ['src/business/x.ts imports ../knowledge/y.js']],
      ['lanes -> type modules', ['src/lanes/x/handler.ts imports ./definition.js']],
    ]);
    expect(check(edges).map((p) => `${p.key}: ${p.why}`).sort()).toEqual([
      'business -> knowledge: cycle between folders',
      'knowledge -> business: cycle between folders',
      'runtime -> workers: upward',
      'worker-sdk -> store: the worker SDK imports the service',
    ]);
  });
});
