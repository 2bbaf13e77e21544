import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { StateStore } from '../store/types.js';
import type { Admit } from '../tasks/admission.js';
import type { TriggerCheck } from '../tasks/trigger-check.js';
import type { SecretRedactor } from '../redaction/known-secrets.js';
import type { BuiltInConfig } from './built-in.js';
import { createScheduleService } from './schedule-service.js';
import { createScheduleStore } from './schedule-store.js';
import { createScheduleTimer, type CancelRun } from './schedule-timer.js';

export interface SchedulesModuleDeps {
  config: BuiltInConfig;
  store: StateStore;
  clock: Clock;
  logger: Logger;
  admit: Admit;
  checkTrigger: TriggerCheck;
  /** The cancel path for overlap `cancel-previous`; absent, such a firing runs beside the previous run. */
  cancelRun?: CancelRun;
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
