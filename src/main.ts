#!/usr/bin/env node
import { randomBytes } from 'node:crypto';
import { startApp } from './app.js';
import { loadConfig } from './config/load.js';
import type { AppConfig } from './config/types.js';
import { seedDemoWorkspace } from './demo/seed-workspace.js';
import { demoCommands } from './demo/try-it.js';
import { DomainError, type ErrorCode } from './domain/errors.js';
import { createLogger } from './logging.js';
import { runMigrateCommand } from './migrate/command.js';

function fatal(message: string): never {
  process.stderr.write(`fatal: ${message}\n`);
  process.exit(1);
}

/**
 * Start-up failures whose message is the whole story for the operator (which setting, which
 * file, what to do): printed as they are. Any other failure is logged with its stack and printed
 * after `start-up failed:`.
 */
const PRINTED_AS_IS: ReadonlySet<ErrorCode> = new Set(['invalid_config', 'state_corrupt']);

const printedAsIs = (err: unknown): err is DomainError => err instanceof DomainError && PRINTED_AS_IS.has(err.code);

/** Three demo-local keys, one per role, and a webhook secret; printed once, never stored. */
function demoSecrets(): { rotation: string; webhookSecret: string; keys: Record<'viewer' | 'operator' | 'admin', string> } {
  const key = () => randomBytes(24).toString('base64url');
  const keys = { viewer: `demo-viewer-${key()}`, operator: `demo-operator-${key()}`, admin: `demo-admin-${key()}` };
  const rotation = JSON.stringify(
    Object.entries(keys).map(([role, value]) => ({ key: value, label: `demo-${role}`, role })),
  );
  return { rotation, webhookSecret: randomBytes(24).toString('base64url'), keys };
}

/** What a command adds around start-up: work before the service starts, output after it listens. */
interface StartHooks {
  beforeStart?(config: AppConfig): void;
  afterListening?(url: string): void;
}

async function start(env: NodeJS.ProcessEnv, hooks: StartHooks = {}): Promise<void> {
  let config;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (printedAsIs(err)) fatal(err.message);
    throw err;
  }
  const logger = createLogger(config.logLevel);
  let app;
  try {
    hooks.beforeStart?.(config);
    app = await startApp(config, logger);
  } catch (err) {
    if (printedAsIs(err)) fatal(err.message);
    logger.fatal({ err }, 'start-up failed');
    fatal(`start-up failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  // The readiness line is printed whatever the log level (launchers wait for it), through a
  // child of the service logger so it has the same level and time encoding as every other line.
  logger.child({}, { level: 'info' }).info({ url: app.url, metricsUrl: app.metricsUrl }, 'service listening');
  // The logger writes asynchronously; flushing first keeps a command's output after that line.
  const { url } = app;
  logger.flush(() => hooks.afterListening?.(url));
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

/**
 * The demo: demo-local keys printed once, a sample workspace (runbooks and a small project)
 * unless one exists, and commands to try once it listens.
 */
function demo(env: NodeJS.ProcessEnv): Promise<void> {
  const secrets = demoSecrets();
  process.stdout.write(
    [
      'Demo-local keys (shown once; replace before any shared deployment):',
      `  viewer:   ${secrets.keys.viewer}`,
      `  operator: ${secrets.keys.operator}`,
      `  admin:    ${secrets.keys.admin}`,
      'Use them as: Authorization: Bearer <key>',
      '',
    ].join('\n'),
  );
  return start(
    { ...env, API_KEY_ROTATION: secrets.rotation, API_KEY: '', WEBHOOK_SECRET: secrets.webhookSecret },
    {
      beforeStart(config) {
        const seeded = seedDemoWorkspace(config);
        const say = (outcome: string, path: string) => (outcome === 'seeded' ? `seeded ${path}` : `kept the existing ${path}`);
        process.stdout.write(
          `Sample workspace: ${say(seeded.docs, config.docsPath)}; ${say(seeded.sampleProject, seeded.sampleProjectPath)}; ` +
            `${say(seeded.businessRegistry ?? 'kept', config.businessRegistryPath)}\n\n`,
        );
      },
      afterListening(url) {
        process.stdout.write(`${demoCommands({ url, operatorKey: secrets.keys.operator }).join('\n')}\n`);
      },
    },
  );
}

async function main(): Promise<void> {
  const command = process.argv[2] ?? 'start';
  if (command === 'start') return start(process.env);
  if (command === 'demo') return demo(process.env);
  if (command === 'migrate') {
    const code = await runMigrateCommand(process.argv.slice(3), process.env, {
      cwd: process.cwd(),
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
    });
    process.exit(code);
  }
  fatal(`unknown command "${command}" (expected start, demo or migrate)`);
}

void main();
