/**
 * Where the knowledge summary and query read the repair loop's posture. The knowledge service is
 * built before the repair loop (the loop refreshes through it), so the loop attaches its reader
 * here afterwards; until then, and without a loop, the posture is null.
 */

import type { RepairPosture } from './repair-posture.js';

export interface RepairPosturePort {
  read(): Promise<RepairPosture | null>;
  attach(read: () => Promise<RepairPosture | null>): void;
}

export function repairPosturePort(): RepairPosturePort {
  let reader: () => Promise<RepairPosture | null> = async () => null;
  return {
    read: () => reader(),
    attach(read) {
      reader = read;
    },
  };
}
