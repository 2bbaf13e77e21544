import type { SecretRedactor } from '../redaction/known-secrets.js';
import type { BuiltInConfig } from './built-in.js';
import { createScheduleService } from './schedule-service.js';
import { createScheduleStore } from './schedule-store.js';
import { createScheduleTimer, type ScheduleTimerDeps } from './schedule-timer.js';

/** The timer's ports (store, clock, logger, admission, trigger check, cancel path, flows), plus: */
export interface SchedulesModuleDeps extends Pick<ScheduleTimerDeps, 'store' | 'clock' | 'logger' | 'admit' | 'checkTrigger' | 'cancelRun' | 'flows'> {
  config: BuiltInConfig;
  /** Replaces the service's own secrets in stored schedule payloads (src/redaction/). */
  redact?: Pick<SecretRedactor, 'value'>;
}

/**
 * User schedules: the service behind the schedules routes and the timer that fires them, over
 * the same store documents. A write through the service re-arms this instance's timer at once;
 * other instances see it at their next refresh.
 */
export function createSchedulesModule(deps: SchedulesModuleDeps) {
  const schedules = createScheduleStore(deps.store);
  const timer = createScheduleTimer({
    schedules,
    store: deps.store,
    clock: deps.clock,
    logger: deps.logger,
    admit: deps.admit,
    checkTrigger: deps.checkTrigger,
    cancelRun: deps.cancelRun,
    flows: deps.flows,
  });
  const service = createScheduleService({
    schedules,
    store: deps.store,
    clock: deps.clock,
    checkTrigger: deps.checkTrigger,
    builtInConfig: deps.config,
    onChange: () => timer.reschedule(),
    redact: deps.redact,
  });
  return { service, timer };
}
