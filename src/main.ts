#!/usr/bin/env node
import { startApp } from './app.js';
import { loadConfig } from './config/load.js';
import type { AppConfig } from './config/types.js';
import { parseApiKeys } from './config/keys.js';
import { DEMO_ROLES, demoKeyRotation, demoStateFolder, keepDemoKeys, type KeptKeys } from './demo/demo-keys.js';
import { createDemoTerminal } from './demo/demo-terminal.js';
import { seedDemoWorkspace } from './demo/seed-workspace.js';
import { demoCommands } from './demo/try-it.js';
import { DomainError, type ErrorCode } from './domain/errors.js';
import { createLogger, type PerItemLines } from './logging.js';
import { runMigrateCommand } from './migrate/command.js';
import { createAlertRelay, relaySettings } from './relay/alert-relay.js';
import { createStartupPhases } from './startup-phases.js';

// Evaluated once every module imported above is loaded: the end of the first start-up phase.
const startupPhases = createStartupPhases();

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

function loadConfigOrFatal(env: NodeJS.ProcessEnv): AppConfig {
  try {
    return loadConfig(env);
  } catch (err) {
    if (printedAsIs(err)) fatal(err.message);
    throw err;
  }
}

/** What a command adds around start-up: work before the service starts, output after it listens. */
interface StartHooks {
  beforeStart?(config: AppConfig): void;
  afterListening?(url: string): void;
  /** How the log lines about one request or one run are written (absent: at info). */
  perItemLines?: PerItemLines;
  /** Called when the service begins to shut down. */
  onShutdown?(): void;
}

async function start(config: AppConfig, hooks: StartHooks = {}): Promise<void> {
  const logger = createLogger(config.logLevel, undefined, hooks.perItemLines);
  let app;
  try {
    hooks.beforeStart?.(config);
    app = await startApp(config, logger, undefined, startupPhases);
  } catch (err) {
    if (printedAsIs(err)) fatal(err.message);
    logger.fatal({ err }, 'start-up failed');
    fatal(`start-up failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  // The readiness line is printed whatever the log level (launchers wait for it), with the
  // start-up phases' ends (ms since the process started), through a child of the service logger
  // so it has the same level and time encoding as every other line.
  logger.child({}, { level: 'info' }).info({ url: app.url, metricsUrl: app.metricsUrl, startupPhases: app.startupPhases }, 'service listening');
  // The logger writes asynchronously; flushing first keeps a command's output after that line.
  const { url } = app;
  logger.flush(() => hooks.afterListening?.(url));
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    hooks.onShutdown?.();
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
  // SIGHUP re-reads config `limits` (docs/queue.md); a file that does not load keeps the limits in force.
  process.on('SIGHUP', () => {
    try {
      app.reloadLimits();
    } catch (err) {
      logger.error({ err }, 'limits not reloaded on SIGHUP');
    }
  });
}

const DEMO_USAGE = 'npm run demo [-- --new-keys]';
/** Stands in for the credentials while the config is read to find the demo's state folder; replaced before start. */
const UNTIL_THE_DEMO_KEYS = 'replaced-by-the-demo-keys';

function keysNotice(kept: KeptKeys): string {
  const how = kept.outcome === 'made' ? 'made and kept' : 'reused';
  return [
    `Demo-local keys (${how} in ${kept.path}, mode 0600; \`npm run demo -- --new-keys\` makes new ones; replace them before any shared deployment):`,
    ...DEMO_ROLES.map((role) => `  ${`${role}:`.padEnd(10)}${kept.keys[role]}`),
    'Use them as: Authorization: Bearer <key>',
    '',
  ].join('\n');
}

/**
 * The demo: demo-local keys kept in its state folder (reused at every start, new with
 * `--new-keys`), a sample workspace (runbooks and a small project) unless one exists, commands to
 * try once it listens, then a line per run that ends and a summary per minute (the log lines
 * about one request or one run at debug).
 */
function demo(env: NodeJS.ProcessEnv, args: string[]): Promise<void> {
  const unknown = args.find((arg) => arg !== '--new-keys');
  if (unknown !== undefined) fatal(`unknown demo option "${unknown}" (usage: ${DEMO_USAGE})`);
  const located = loadConfigOrFatal({ ...env, API_KEY_ROTATION: '', API_KEY: UNTIL_THE_DEMO_KEYS, WEBHOOK_SECRET: UNTIL_THE_DEMO_KEYS });
  const folder = demoStateFolder(located);
  let kept: KeptKeys;
  try {
    kept = keepDemoKeys(folder, { renew: args.includes('--new-keys') });
  } catch (err) {
    fatal(printedAsIs(err) ? err.message : `the demo keys could not be kept in ${folder}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const config: AppConfig = { ...located, apiKeys: parseApiKeys(demoKeyRotation(kept.keys), undefined), webhookSecret: kept.webhookSecret };
  const print = (line: string) => process.stdout.write(`${line}\n`);
  const terminal = createDemoTerminal(print);
  process.stdout.write(keysNotice(kept));
  return start(config, {
    beforeStart(ready) {
      const seeded = seedDemoWorkspace(ready);
      const say = (outcome: string, path: string) => (outcome === 'seeded' ? `seeded ${path}` : `kept the existing ${path}`);
      process.stdout.write(
        `Sample workspace: ${say(seeded.docs, ready.docsPath)}; ${say(seeded.sampleProject, seeded.sampleProjectPath)}; ` +
          `${say(seeded.businessRegistry ?? 'kept', ready.businessRegistryPath)}; ${say(seeded.taskTypes ?? 'kept', ready.taskTypesDir)}\n\n`,
      );
    },
    afterListening(url) {
      process.stdout.write(`${demoCommands({ url, operatorKey: kept.keys.operator }).join('\n')}\n`);
      print('Runs as they end (time, status, type, run id, duration), and a summary of each busy minute:');
      terminal.start(url, kept.keys.viewer);
    },
    perItemLines: { level: 'debug', onRequestCompleted: (statusCode) => terminal.requestCompleted(statusCode) },
    onShutdown: () => terminal.stop(),
  });
}

/**
 * `relay`: the alerting sidecar's relay (src/relay/alert-relay.ts), listening on 127.0.0.1 only
 * (RELAY_PORT, default 9095) and forwarding Alertmanager's webhooks signed to RELAY_TARGET_URL.
 */
function relay(env: NodeJS.ProcessEnv): Promise<void> {
  const settings = relaySettings(env);
  if (typeof settings === 'string') fatal(settings);
  const server = createAlertRelay({ targetUrl: settings.targetUrl, secret: settings.secret });
  return new Promise((resolve) => {
    server.listen(settings.port, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      process.stdout.write(`${JSON.stringify({ level: 'info', msg: 'alert relay listening', url: `http://127.0.0.1:${port}`, target: new URL(settings.targetUrl).origin })}\n`);
      resolve();
    });
    const stop = () => server.close(() => process.exit(0));
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}

async function main(): Promise<void> {
  const command = process.argv[2] ?? 'start';
  if (command === 'start') return start(loadConfigOrFatal(process.env));
  if (command === 'demo') return demo(process.env, process.argv.slice(3));
  if (command === 'migrate') {
    const code = await runMigrateCommand(process.argv.slice(3), process.env, {
      cwd: process.cwd(),
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
    });
    process.exit(code);
  }
  if (command === 'relay') return relay(process.env);
  fatal(`unknown command "${command}" (expected start, demo, migrate or relay)`);
}

void main();
