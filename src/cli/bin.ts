import { runCli } from './main.js';

/** `orch` as a process: wires the real terminal, environment and Ctrl-C to runCli. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const interrupt = new AbortController();
process.once('SIGINT', () => interrupt.abort());

const code = await runCli({ argv: process.argv.slice(2), env: process.env, stdout: process.stdout, stderr: process.stderr, readStdin, signal: interrupt.signal });
process.exitCode = code;
