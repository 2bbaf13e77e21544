import { describe, expect, it } from 'vitest';
import { runSlotsOf } from '../../src/worker-sdk/control-plane.js';
import { quietSnapshot } from '../support/control-plane-snapshot.js';

function snapshot(concurrency: number, processing: number) {
  const quiet = quietSnapshot();
  return { service: { ...quiet.service, concurrency }, queue: { ...quiet.queue, processing } };
}

describe('runSlotsOf', () => {
  it("is the instance's concurrency while it runs at least as many runs as execute", () => {
    expect(runSlotsOf(snapshot(4, 0))).toEqual({ slots: 4, basis: 'concurrency 4' });
    expect(runSlotsOf(snapshot(4, 4))).toEqual({ slots: 4, basis: 'concurrency 4' });
  });

  it('is the runs executing when other instances run more than its own slots', () => {
    expect(runSlotsOf(snapshot(4, 12))).toEqual({ slots: 12, basis: '12 runs executing across instances' });
    expect(runSlotsOf(snapshot(0, 30))).toEqual({ slots: 30, basis: '30 runs executing across instances' });
  });

  it('is one slot for an admission-only instance while nothing runs the queue', () => {
    expect(runSlotsOf(snapshot(0, 0))).toEqual({ slots: 1, basis: 'one slot: this instance runs none (concurrency 0) and no run is executing' });
  });
});
