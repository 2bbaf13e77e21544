import { createBridge, createBridgeServer, loadBridgeConfig } from './index.js';
import { UsageError } from '../src/cli/usage-error.js';
import { EXIT, flag, word, type Verb } from '../src/cli/verb.js';

export const bridgeVerb: Verb = {
  name: 'bridge',
  summary: 'serve the /orch chat bridge over signed HTTP',
  usage: 'serve --config <bridge.json> [--port n]',
  positionals: [{ name: 'action', required: true }],
  flags: [
    { name: 'config', takes: 'value', valueName: 'file', summary: 'the bridge config (docs/bridge.md)' },
    { name: 'port', takes: 'value', valueName: 'n', summary: 'port to listen on (default: the config file, else 8787)' },
  ],
  details: ['Chat clients POST {text, user, channel} signed with HMAC-SHA256 over "<timestamp>.<raw body>" (docs/bridge.md).'],
  needsService: false,
  async run({ args, output, env, signal }) {
    if (word(args, 'action') !== 'serve') throw new UsageError(`unknown bridge action '${word(args, 'action')}'; the one action is 'serve'`);
    const path = flag(args, 'config');
    if (path === undefined) throw new UsageError("'bridge serve' needs --config <file>");
    let config;
    try {
      config = loadBridgeConfig(path, env);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    if (config.secret === null) throw new UsageError(`${path}: signingSecretEnv is needed to serve over HTTP`);
    const portFlag = flag(args, 'port');
    const port = portFlag === undefined ? config.port : Number(portFlag);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, not '${portFlag}'`);
    const bridge = createBridge({
      ...config.options,
      log: (entry) => output.err(JSON.stringify({ msg: 'bridge message', ...entry })),
    });
    const server = createBridgeServer({ bridge, secret: config.secret });
    await new Promise<void>((resolve) => server.listen(port, config.host, resolve));
    const address = server.address();
    const bound = typeof address === 'object' && address ? address.port : port;
    output.out(`bridge listening on http://${config.host}:${bound}/ for ${config.options.url}`);
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return EXIT.ok;
  },
};
