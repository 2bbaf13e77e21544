// A vitest setup file (vitest.config.ts, vitest.reliability.config.ts): every test file runs with
// the loopback guard, and a test during which anything tried to reach past loopback fails, even
// when the code under test caught the refusal and carried on.
import { afterAll, afterEach } from 'vitest';
import { describeViolation, installLoopbackGuard, takeViolations } from './loopback-guard.mjs';

installLoopbackGuard();

function failOnRefusals(): void {
  const refused = takeViolations();
  if (refused.length === 0) return;
  const lines = refused.map((violation) => `${describeViolation(violation)}\n${violation.stack}`);
  throw new Error(`this test tried to send traffic past loopback:\n${lines.join('\n')}`);
}

afterEach(failOnRefusals);
// Work left running after the last test (or started by a beforeAll) is caught here.
afterAll(failOnRefusals);
