import { runOrch } from './orch.js';

/** `orch` as a process: wires the real terminal, environment and Ctrl-C to runOrch. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

// A reader that stops early (`orch runs | head`) closes the pipe: what is left to print has no
// one to read it, so the command ends there, quietly and successfully, instead of on EPIPE. A
// closed standard error only loses its messages: the command still ends with its own code.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});
process.stderr.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
});

const interrupt = new AbortController();
process.once('SIGINT', () => interrupt.abort());

const code = await runOrch({ argv: process.argv.slice(2), env: process.env, stdout: process.stdout, stderr: process.stderr, readStdin, signal: interrupt.signal });
process.exitCode = code;
