// Preloaded into a service a test starts (service-process.ts, NODE_OPTIONS=--import): the same
// loopback guard as in the test process. Each refusal is printed on stderr as one line starting
// with GUARD_REPORT_PREFIX, and the test that started the service fails when it stops it.
import { describeViolation, GUARD_REPORT_PREFIX, installLoopbackGuard } from './loopback-guard.mjs';

installLoopbackGuard({
  onViolation: (violation) => {
    const caller = violation.stack.trim().split('\n')[0]?.trim() ?? 'unknown caller';
    process.stderr.write(`${GUARD_REPORT_PREFIX}${describeViolation(violation)} (${caller})\n`);
  },
});
