import { execFile } from 'node:child_process';

/**
 * Host truth about a resident agent's systemd user unit. The probe runs `systemctl --user show`
 * off the request path (a timer calls `refresh()`), and reads are served from the cache, so an
 * overview request never waits on systemd and never forks a process.
 */

export type HostServiceStatus =
  | 'running'
  | 'stopped'
  | 'failed'
  | 'not-installed'
  | 'probe-unavailable'
  | 'not-probed';

/** What `systemctl show` says about one unit. */
export interface SystemctlUnitFacts {
  serviceInstalled: boolean;
  serviceRunning: boolean;
  serviceUnitState: string | null;
  serviceUnitSubState: string | null;
  serviceUnitFileState: string | null;
}

/** One cached reading. Every unit field is null exactly when the probe itself could not answer. */
export interface ServiceUnitReading {
  unit: string;
  hostServiceStatus: HostServiceStatus;
  serviceInstalled: boolean | null;
  serviceRunning: boolean | null;
  serviceUnitState: string | null;
  serviceUnitSubState: string | null;
  serviceUnitFileState: string | null;
  /** Why the fields are null (probe unavailable, not probed yet); null when the reading is real. */
  reason: string | null;
  probedAt: string | null;
}

export const SYSTEMCTL_PROPERTIES = 'LoadState,ActiveState,SubState,UnitFileState';
export const PROBE_TIMEOUT_MS = 3000;

const blank = (value: string | undefined): string | null => (value === undefined || value.trim() === '' ? null : value.trim());

/** Parses `KEY=value` lines of `systemctl show --property=LoadState,ActiveState,SubState,UnitFileState`. */
export function parseSystemctlShow(text: string): SystemctlUnitFacts {
  const props = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    props.set(line.slice(0, eq).trim(), line.slice(eq + 1));
  }
  const loadState = blank(props.get('LoadState'));
  const activeState = blank(props.get('ActiveState'));
  const subState = blank(props.get('SubState'));
  // systemd reports LoadState=not-found (and an empty UnitFileState) for a unit it has no file for.
  const installed = loadState !== null && loadState !== 'not-found';
  return {
    serviceInstalled: installed,
    serviceRunning: installed && activeState === 'active' && subState === 'running',
    serviceUnitState: activeState,
    serviceUnitSubState: subState,
    serviceUnitFileState: blank(props.get('UnitFileState')),
  };
}

function statusOf(facts: SystemctlUnitFacts): HostServiceStatus {
  if (!facts.serviceInstalled) return 'not-installed';
  if (facts.serviceRunning) return 'running';
  if (facts.serviceUnitState === 'failed') return 'failed';
  return 'stopped';
}

/** A reading with every unit field null: the probe could not answer (or has not yet). */
export function unavailableReading(
  unit: string,
  reason: string,
  probedAt: string | null,
  status: 'probe-unavailable' | 'not-probed' = 'probe-unavailable',
): ServiceUnitReading {
  return {
    unit,
    hostServiceStatus: status,
    serviceInstalled: null,
    serviceRunning: null,
    serviceUnitState: null,
    serviceUnitSubState: null,
    serviceUnitFileState: null,
    reason,
    probedAt,
  };
}

/**
 * Names why `systemctl` could not answer: it is not installed (ENOENT), there is no user bus
 * (a login session without systemd --user, a container), or it did not answer in time.
 */
export function probeFailureReason(err: unknown): string {
  const e = err as { code?: unknown; killed?: boolean; signal?: unknown; message?: unknown; stderr?: unknown };
  const text = `${typeof e?.message === 'string' ? e.message : String(err)} ${typeof e?.stderr === 'string' ? e.stderr : ''}`;
  if (e?.code === 'ENOENT') return 'systemctl is not installed on this host (ENOENT)';
  if (/Failed to connect to (?:the )?bus/i.test(text)) return 'no systemd user bus (Failed to connect to bus)';
  if (e?.code === 'ETIMEDOUT' || e?.killed === true || /timed? ?out/i.test(text)) return 'systemctl did not answer in time (timeout)';
  const firstLine = text.trim().split(/\r?\n/)[0] ?? 'unknown error';
  return `systemctl show failed: ${firstLine.slice(0, 200)}`;
}

export type RunShow = (unit: string) => Promise<string>;

/** The real `systemctl --user show`, bounded by a 3 s timeout. */
export const systemctlRunShow: RunShow = (unit) =>
  new Promise((resolve, reject) => {
    execFile(
      'systemctl',
      ['--user', 'show', unit, `--property=${SYSTEMCTL_PROPERTIES}`],
      { timeout: PROBE_TIMEOUT_MS, windowsHide: true },
      (err, stdout, stderr) => {
        if (err) reject(Object.assign(err, { stderr: String(stderr) }));
        else resolve(String(stdout));
      },
    );
  });

export interface ServiceProbeOptions {
  runShow: RunShow;
  /** A reading older than this is no longer trusted (the refresher stopped): it reads as probe-unavailable. */
  ttlMs: number;
  now?: () => Date;
}

export interface ServiceProbe {
  /** Probes every unit now (in parallel); concurrent calls share one probe round. */
  refresh(units: readonly string[]): Promise<ServiceUnitReading[]>;
  /** The cached reading; never probes. */
  current(unit: string): ServiceUnitReading;
}

export function createServiceProbe(options: ServiceProbeOptions): ServiceProbe {
  const now = options.now ?? (() => new Date());
  const cache = new Map<string, ServiceUnitReading>();
  let inFlight: Promise<ServiceUnitReading[]> | null = null;

  async function probeOne(unit: string): Promise<ServiceUnitReading> {
    try {
      const facts = parseSystemctlShow(await options.runShow(unit));
      return { unit, hostServiceStatus: statusOf(facts), ...facts, reason: null, probedAt: now().toISOString() };
    } catch (err) {
      return unavailableReading(unit, probeFailureReason(err), now().toISOString());
    }
  }

  return {
    refresh(units) {
      if (inFlight) return inFlight;
      const round = Promise.all([...new Set(units)].map(probeOne)).then((readings) => {
        for (const reading of readings) cache.set(reading.unit, reading);
        return readings;
      });
      inFlight = round.finally(() => {
        inFlight = null;
      });
      return inFlight;
    },
    current(unit) {
      const reading = cache.get(unit);
      if (!reading || reading.probedAt === null) return unavailableReading(unit, 'the host probe has not run yet', null, 'not-probed');
      const age = now().getTime() - Date.parse(reading.probedAt);
      if (age > options.ttlMs) {
        return unavailableReading(unit, `no fresh host reading (last probed at ${reading.probedAt})`, reading.probedAt);
      }
      return reading;
    },
  };
}

/**
 * Runs `refresh` now and every `intervalMs` (unref'd, so it never keeps the process alive);
 * answers the function that stops it. The composition root owns the timer.
 */
export function startServiceProbeTimer(probe: ServiceProbe, units: readonly string[], intervalMs: number): () => void {
  const tick = () => {
    void probe.refresh(units).catch(() => undefined);
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

export interface ServiceGapSignal {
  agentId: string;
  unit: string;
  reason: 'unit-missing' | 'unit-stopped' | 'unit-failed';
  detail: string;
}

interface ServiceExpectation {
  id: string;
  serviceExpected: boolean;
  serviceUnitName: string | null;
}

/**
 * A service-expected agent whose unit is missing, stopped or failed on the host. A reading the
 * probe could not take is not a gap: nothing is known, and guessing would raise false incidents.
 */
export function serviceGapSignals(
  agents: readonly ServiceExpectation[],
  readings: ReadonlyMap<string, ServiceUnitReading> | ((unit: string) => ServiceUnitReading | null | undefined),
): ServiceGapSignal[] {
  const read = typeof readings === 'function' ? readings : (unit: string) => readings.get(unit);
  const signals: ServiceGapSignal[] = [];
  for (const agent of agents) {
    if (!agent.serviceExpected || agent.serviceUnitName === null) continue;
    const unit = agent.serviceUnitName;
    const reading = read(unit);
    if (!reading || reading.serviceInstalled === null) continue;
    if (!reading.serviceInstalled) {
      signals.push({ agentId: agent.id, unit, reason: 'unit-missing', detail: `${unit} is not installed on the host` });
    } else if (!reading.serviceRunning) {
      const failed = reading.serviceUnitState === 'failed';
      signals.push({
        agentId: agent.id,
        unit,
        reason: failed ? 'unit-failed' : 'unit-stopped',
        detail: `${unit} is ${reading.serviceUnitState ?? 'unknown'}/${reading.serviceUnitSubState ?? 'unknown'}`,
      });
    }
  }
  return signals;
}
