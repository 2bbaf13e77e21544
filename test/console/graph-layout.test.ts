import { describe, expect, it } from 'vitest';
import { pathThrough, place, type LayoutNode } from '../../console/src/components/graph/layout.js';

const SPACING = { nodesep: 20, ranksep: 60 };
const chain: LayoutNode[] = [
  { id: 'a', width: 100, height: 40 },
  { id: 'b', width: 160, height: 40 },
  { id: 'c', width: 100, height: 40 },
];
const edges = [
  { from: 'a', to: 'b', label: 'starts' },
  { from: 'b', to: 'c' },
];

const overlap = (p: { left: number; top: number; width: number; height: number }, q: typeof p) =>
  p.left < q.left + q.width && q.left < p.left + p.width && p.top < q.top + q.height && q.top < p.top + p.height;

describe('graph layout over dagre', () => {
  it('lays a chain left to right, inside the drawing, with no node overlapping another', () => {
    const placed = place(chain, edges, 'LR', SPACING);
    const [a, b, c] = placed.nodes;
    expect(a!.left + a!.width).toBeLessThan(b!.left);
    expect(b!.left + b!.width).toBeLessThan(c!.left);
    for (const n of placed.nodes) {
      expect(n.left).toBeGreaterThanOrEqual(0);
      expect(n.top).toBeGreaterThanOrEqual(0);
      expect(n.left + n.width).toBeLessThanOrEqual(placed.width);
      expect(n.top + n.height).toBeLessThanOrEqual(placed.height);
    }
    expect(overlap(a!, b!) || overlap(b!, c!) || overlap(a!, c!)).toBe(false);
  });

  it('lays the same chain top to bottom when asked', () => {
    const placed = place(chain, edges, 'TB', SPACING);
    const [a, b, c] = placed.nodes;
    expect(a!.top + a!.height).toBeLessThan(b!.top);
    expect(b!.top + b!.height).toBeLessThan(c!.top);
    expect(placed.height).toBeGreaterThan(placed.width);
  });

  it('routes each edge from its source to its target and places its label between them', () => {
    const placed = place(chain, edges, 'LR', SPACING);
    const [a, b] = placed.nodes;
    const first = placed.edges[0]!;
    expect(first.points.length).toBeGreaterThanOrEqual(2);
    expect(first.points[0]!.x).toBeCloseTo(a!.left + a!.width, 0);
    expect(first.points.at(-1)!.x).toBeCloseTo(b!.left, 0);
    expect(first.label).toBe('starts');
    expect(first.labelAt!.x).toBeGreaterThan(a!.left + a!.width);
    expect(first.labelAt!.x).toBeLessThan(b!.left);
    expect(placed.edges[1]!.labelAt).toBeNull();
  });

  it('leaves out edges to unknown nodes and loops instead of failing', () => {
    const placed = place(chain, [...edges, { from: 'a', to: 'ghost' }, { from: 'c', to: 'c' }], 'LR', SPACING);
    expect(placed.edges.map((e) => `${e.from}->${e.to}`)).toEqual(['a->b', 'b->c']);
  });

  it('draws a path through the points: a line for two, curves through the bends otherwise', () => {
    expect(pathThrough([])).toBe('');
    expect(pathThrough([{ x: 0, y: 0 }, { x: 10, y: 5 }])).toBe('M0.0,0.0 L10.0,5.0');
    expect(pathThrough([{ x: 0, y: 0 }, { x: 10, y: 0 }, { x: 10, y: 10 }, { x: 20, y: 10 }])).toBe('M0.0,0.0 Q10.0,0.0 10.0,5.0 Q10.0,10.0 20.0,10.0');
  });
});
