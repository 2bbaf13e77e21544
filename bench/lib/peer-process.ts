import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import ts from 'typescript';
import { onCleanup } from './cleanup.js';
import { ROOT } from './paths.js';

/**
 * Peers run as their own plain `node` process, like the service does (`node dist/...`), so a
 * peer pays no TypeScript loader cost at start-up and shares no event loop with the load
 * generator. Each peer file under bench/peers/ is self-contained (imports only packages and
 * node builtins) and is transpiled once per run into a scratch folder inside the project,
 * so package imports resolve against the project's node_modules.
 */
const scratch = join(ROOT, '.tmp', `bench-peers-${process.pid}`);
let scratchRegistered = false;
const compiled = new Map<string, string>();

export function compilePeer(file: string): string {
  const cached = compiled.get(file);
  if (cached) return cached;
  mkdirSync(scratch, { recursive: true });
  if (!scratchRegistered) {
    scratchRegistered = true;
    onCleanup('peer scratch dir', () => {
      rmSync(scratch, { recursive: true, force: true });
      compiled.clear();
      scratchRegistered = false;
    });
  }
  const source = readFileSync(file, 'utf8');
  const out = ts.transpileModule(source, {
    fileName: file,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
      verbatimModuleSyntax: false,
    },
  });
  const target = join(scratch, basename(file).replace(/\.ts$/, '.mjs'));
  writeFileSync(target, out.outputText);
  compiled.set(file, target);
  return target;
}

export interface PeerProcess {
  child: ChildProcess;
  output: string[];
  /** Resolves with the next IPC message whose `type` matches. */
  next<T extends { type: string }>(type: string, timeoutMs?: number): Promise<T>;
  send(message: Record<string, unknown>): void;
  /** SIGKILL to the peer's process group; resolves when it has exited. */
  kill(): Promise<void>;
}

/** Spawns a transpiled peer in its own process group with an IPC channel; `args` arrive as argv[2] (JSON). */
export function spawnPeer(file: string, args: Record<string, unknown>, env: Record<string, string> = {}): PeerProcess {
  const entry = compilePeer(file);
  const child = spawn(process.execPath, [entry, JSON.stringify(args)], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production', ...env },
  });
  const output: string[] = [];
  const keep = (line: string) => {
    output.push(line);
    if (output.length > 200) output.shift();
  };
  createInterface({ input: child.stdout! }).on('line', keep);
  createInterface({ input: child.stderr! }).on('line', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let alive = true;
  void exited.then(() => (alive = false));

  const messages: { type: string }[] = [];
  const waiters: { type: string; resolve: (m: { type: string }) => void }[] = [];
  child.on('message', (raw) => {
    const message = raw as { type: string };
    const index = waiters.findIndex((w) => w.type === message.type);
    if (index >= 0) waiters.splice(index, 1)[0]!.resolve(message);
    else messages.push(message);
  });

  const kill = async () => {
    if (alive && child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await exited;
    }
  };
  const unregister = onCleanup(`peer ${basename(file)} pid ${child.pid}`, kill);

  return {
    child,
    output,
    next<T extends { type: string }>(type: string, timeoutMs = 30_000): Promise<T> {
      const queued = messages.findIndex((m) => m.type === type);
      if (queued >= 0) return Promise.resolve(messages.splice(queued, 1)[0] as T);
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new Error(`peer ${basename(file)} sent no "${type}" in ${timeoutMs} ms:\n${output.slice(-20).join('\n')}`));
        }, timeoutMs);
        void exited.then(() => {
          clearTimeout(timer);
          reject(new Error(`peer ${basename(file)} exited before "${type}":\n${output.slice(-20).join('\n')}`));
        });
        waiters.push({
          type,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m as T);
          },
        });
      });
    },
    send(message) {
      if (alive) child.send(message);
    },
    kill: async () => {
      await unregister();
    },
  };
}
