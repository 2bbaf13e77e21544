/** One release gate: `fail` blocks the release, `warn` holds it, `pass` lets it through. */
export interface ReleaseGate {
  gate: string;
  status: 'pass' | 'warn' | 'fail';
  evidence: string;
}

export type ReleasePosture = 'go' | 'hold' | 'block';

/** Any failing gate blocks; any warning holds; only all-pass is a go. */
export function postureOf(gates: ReleaseGate[]): ReleasePosture {
  if (gates.some((g) => g.status === 'fail')) return 'block';
  if (gates.some((g) => g.status === 'warn')) return 'hold';
  return 'go';
}
