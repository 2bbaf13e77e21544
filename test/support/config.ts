import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load.js';
import type { AppConfig } from '../../src/config/types.js';
import { TEST_WEBHOOK_SECRET, testKeyRotation } from './keys.js';

/** A fresh temporary directory for one test's state, workspace and logs. */
export function tempDir(prefix = 'orch-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * Builds a validated AppConfig the same way start-up does: a config object written as the
 * process env (plus test keys), resolved against a temporary base directory.
 */
export function testConfig(env: Record<string, string> = {}, baseDir: string = tempDir()): AppConfig {
  return loadConfig(
    {
      API_KEY_ROTATION: testKeyRotation(),
      WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
      PORT: '0',
      METRICS_PORT: '0',
      LOG_LEVEL: 'silent',
      ORCHESTRATOR_DOC_WATCHER: 'false',
      ...env,
    },
    baseDir,
  );
}
