/** Types of loopback-guard.mjs (plain JavaScript, so a spawned service can preload it). */

/** The `code` of the error a refused call fails with. */
export declare const GUARD_ERROR_CODE: 'ERR_LOOPBACK_GUARD';
/** How a spawned service reports a refusal on stderr (loopback-guard-preload.mjs). */
export declare const GUARD_REPORT_PREFIX: 'loopback-guard: ';

/** One refused call: what kind of traffic, which function, where to, and who called it. */
export interface LoopbackViolation {
  kind: 'TCP' | 'UDP' | 'DNS';
  api: string;
  target: string;
  stack: string;
}

export declare function isLoopbackAddress(address: string): boolean;
export declare function describeViolation(violation: LoopbackViolation): string;
export declare function takeViolations(): LoopbackViolation[];
export declare function installLoopbackGuard(options?: { onViolation?: (violation: LoopbackViolation) => void }): void;
