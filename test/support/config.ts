import { mkdtempSync, writeFileSync } from 'node:fs';
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

/** Writes `fields` as `<dir>/orchestrator.config.json` (what ORCHESTRATOR_CONFIG names) and returns its path. */
export function writeConfigFile(dir: string, fields: Record<string, unknown>): string {
  const file = join(dir, 'orchestrator.config.json');
  writeFileSync(file, JSON.stringify(fields));
  return file;
}

/**
 * A real AppConfig for one handler test: `fields` are written as the JSON config file in a fresh
 * temp directory, which the loader resolves paths against (workspace, docs and logs live there).
 */
export function handlerConfig(fields: Record<string, unknown> = {}): AppConfig {
  const dir = tempDir('handler-');
  return testConfig({ ORCHESTRATOR_CONFIG: writeConfigFile(dir, fields) }, dir);
}
