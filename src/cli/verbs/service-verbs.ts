import { createOrchClient } from '../../client/index.js';
import { loginFilePath, removeLoginFile, writeLoginFile } from '../config-file.js';
import { fields, paint, statusColour, when } from '../output.js';
import { table } from '../table.js';
import { UsageError } from '../usage-error.js';
import { answerVerb, EXIT, flag, printJson, type Verb } from '../verb.js';

type Row = Record<string, unknown>;

export const catalogVerb = answerVerb({
  name: 'catalog',
  summary: 'task types this service runs',
  read: (client) => client.catalog(),
  show(output, catalog) {
    output.out(
      table<Row>(
        output,
        catalog.tasks,
        [
          { header: 'type', value: (r) => r.type },
          { header: 'approval', value: (r) => (r.approvalGated ? 'required' : ''), fit: 'drop' },
          { header: 'status', value: (r) => r.operationalStatus, fit: 'drop' },
          { header: 'runs as', value: (r) => r.executor, fit: 'drop' },
          { header: 'purpose', value: (r) => r.purpose, fit: 'cut' },
        ],
        'The catalog is empty.',
      ),
    );
    return EXIT.ok;
  },
});

export const healthVerb = answerVerb({
  name: 'health',
  summary: "the service's health",
  read: (client) => client.health(),
  show(output, health) {
    const status = String(health.status ?? 'unknown');
    const healthy = status === 'healthy' || status === 'ok';
    output.out(
      fields([
        ['status', paint(output, statusColour(healthy ? 'ok' : 'down'), status)],
        ['uptime', typeof health.uptimeSeconds === 'number' ? `${Math.round(health.uptimeSeconds)} s` : null],
        ['checked', when(health.timestamp)],
      ]),
    );
    return healthy ? EXIT.ok : EXIT.failed;
  },
});

export const loginVerb: Verb = {
  name: 'login',
  summary: 'check a URL and key against the service and keep them in the login file (mode 0600)',
  usage: '[--url <url>] [--api-key <key>]   (the key may also come on standard input)',
  positionals: [],
  flags: [],
  needsService: false,
  async run({ args, output, env, readStdin }) {
    const url = flag(args, 'url') ?? env.ORCH_URL;
    if (!url) throw new UsageError("'login' needs --url <url> (or ORCH_URL)");
    let apiKey = flag(args, 'api-key') ?? env.ORCH_API_KEY;
    if (!apiKey && !process.stdin.isTTY) apiKey = (await readStdin()).trim();
    if (!apiKey) throw new UsageError("'login' needs a key: --api-key <key>, ORCH_API_KEY, or the key on standard input");
    const me = await createOrchClient({ url, apiKey }).me();
    const path = loginFilePath(env);
    writeLoginFile(path, { url, apiKey });
    if (output.json) return printJson(output, { url, file: path, identity: me });
    output.out(`logged in to ${url} as ${String(me.actor ?? me.label ?? 'unknown')} (${String(me.role ?? '?')}); saved to ${path}`);
    return EXIT.ok;
  },
};

export const logoutVerb: Verb = {
  name: 'logout',
  summary: 'forget the saved URL and key',
  usage: '',
  positionals: [],
  flags: [],
  needsService: false,
  async run({ output, env }) {
    const path = loginFilePath(env);
    const removed = removeLoginFile(path);
    output.out(removed ? `removed ${path}` : `no login file at ${path}`);
    return EXIT.ok;
  },
};
