import { performance } from 'node:perf_hooks';

/**
 * When each start-up phase ended, in milliseconds since the process started
 * (`performance.timeOrigin`): the modules the entry imports statically are loaded, the state
 * store is open, the service is composed (routes, server), restart recovery is done, the HTTP
 * listener accepts connections. The readiness line carries them so a slow start can be told
 * apart by phase (bench/scenarios/startup.ts).
 */
export interface StartupPhases {
  modulesLoadedMs: number;
  storeOpenMs: number;
  composedMs: number;
  recoveredMs: number;
  listeningMs: number;
  /** CPU time (user and system) the process used until it listened: what a busy host does not inflate. */
  cpuMs: number;
}

export type StartupPhase = Exclude<keyof StartupPhases, 'cpuMs'>;

/** Records phase ends as they happen; `modulesLoadedMs` is given by the entry, which alone knows it. */
export function createStartupPhases(modulesLoadedMs: number = performance.now()) {
  const ends: Omit<StartupPhases, 'cpuMs'> = { modulesLoadedMs, storeOpenMs: 0, composedMs: 0, recoveredMs: 0, listeningMs: 0 };
  let cpuMs = 0;
  return {
    end(phase: Exclude<StartupPhase, 'modulesLoadedMs'>): void {
      ends[phase] = performance.now();
      if (phase === 'listeningMs') {
        const cpu = process.cpuUsage();
        cpuMs = (cpu.user + cpu.system) / 1000;
      }
    },
    /** Rounded to 0.1 ms: what the readiness line prints. */
    snapshot(): StartupPhases {
      const round = (ms: number) => Math.round(ms * 10) / 10;
      return {
        modulesLoadedMs: round(ends.modulesLoadedMs),
        storeOpenMs: round(ends.storeOpenMs),
        composedMs: round(ends.composedMs),
        recoveredMs: round(ends.recoveredMs),
        listeningMs: round(ends.listeningMs),
        cpuMs: round(cpuMs),
      };
    },
  };
}

export type StartupPhaseRecorder = ReturnType<typeof createStartupPhases>;
