#!/usr/bin/env node
import { randomBytes } from 'node:crypto';
import { startApp } from './app.js';
import { ConfigError } from './config/errors.js';
import { loadConfig } from './config/load.js';
import { createLogger } from './logging.js';
import { StateCorruptError } from './store/types.js';

function fatal(message: string): never {
  process.stderr.write(`fatal: ${message}\n`);
  process.exit(1);
}

/** Three demo-local keys, one per role, and a webhook secret; printed once, never stored. */
function demoSecrets(): { rotation: string; webhookSecret: string; keys: Record<string, string> } {
  const key = () => randomBytes(24).toString('base64url');
  const keys = { viewer: `demo-viewer-${key()}`, operator: `demo-operator-${key()}`, admin: `demo-admin-${key()}` };
  const rotation = JSON.stringify(
    Object.entries(keys).map(([role, value]) => ({ key: value, label: `demo-${role}`, role })),
  );
  return { rotation, webhookSecret: randomBytes(24).toString('base64url'), keys };
}

async function start(env: NodeJS.ProcessEnv): Promise<void> {
  let config;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) fatal(err.message);
    throw err;
  }
  const logger = createLogger(config.logLevel);
  let app;
  try {
    app = await startApp(config, logger);
  } catch (err) {
    if (err instanceof StateCorruptError || err instanceof ConfigError) fatal(err.message);
    logger.fatal({ err }, 'start-up failed');
    fatal(`start-up failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  // The readiness line is printed whatever the log level: launchers wait for it.
  process.stdout.write(
    `${JSON.stringify({ level: 30, time: Date.now(), msg: 'service listening', url: app.url, metricsUrl: app.metricsUrl })}\n`,
  );
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    app
      .stop()
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

async function main(): Promise<void> {
  const command = process.argv[2] ?? 'start';
  if (command === 'start') return start(process.env);
  if (command === 'demo') {
    const demo = demoSecrets();
    process.stdout.write(
      [
        'Demo-local keys (shown once; replace before any shared deployment):',
        `  viewer:   ${demo.keys.viewer}`,
        `  operator: ${demo.keys.operator}`,
        `  admin:    ${demo.keys.admin}`,
        'Use them as: Authorization: Bearer <key>',
        '',
      ].join('\n'),
    );
    return start({ ...process.env, API_KEY_ROTATION: demo.rotation, API_KEY: '', WEBHOOK_SECRET: demo.webhookSecret });
  }
  fatal(`unknown command "${command}" (expected start or demo)`);
}

void main();
