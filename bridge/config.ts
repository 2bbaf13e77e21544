import { readFileSync } from 'node:fs';
import type { BridgeOptions } from './bridge.js';

/**
 * The bridge's own configuration file (JSON). Keys and the signing secret are named by the
 * environment variables that hold them, so the file itself holds no secret:
 * `{"url": "http://127.0.0.1:3000", "users": {"alice": {"keyEnv": "ORCH_KEY_ALICE"}},
 *   "readOnlyKeyEnv": "ORCH_KEY_VIEWER", "signingSecretEnv": "ORCH_BRIDGE_SECRET", "port": 8787}`
 */
export interface BridgeFile {
  url: string;
  users: Record<string, { keyEnv: string }>;
  readOnlyKeyEnv?: string;
  signingSecretEnv?: string;
  port?: number;
  host?: string;
}

export interface ResolvedBridgeConfig {
  options: Pick<BridgeOptions, 'url' | 'users' | 'readOnlyKey'>;
  secret: string | null;
  port: number;
  host: string;
}

/** The value of the environment variable `name` when it is set and not empty; never a property every object has. */
function envValue(env: NodeJS.ProcessEnv, name: string): string | null {
  const value = Object.hasOwn(env, name) ? env[name] : undefined;
  return typeof value === 'string' && value !== '' ? value : null;
}

/**
 * Reads and checks the file, resolving every key from the environment; a problem is one clear
 * message. User names and variable names are looked up as data: the users map has no prototype,
 * so a chat user named `__proto__` or `constructor` is kept like any other.
 */
export function loadBridgeConfig(path: string, env: NodeJS.ProcessEnv): ResolvedBridgeConfig {
  let file: BridgeFile;
  try {
    file = JSON.parse(readFileSync(path, 'utf8')) as BridgeFile;
  } catch (err) {
    throw new Error(`cannot read the bridge config ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (typeof file.url !== 'string') throw new Error(`${path}: url is missing`);
  if (typeof file.users !== 'object' || file.users === null) throw new Error(`${path}: users is missing`);
  const users: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [user, entry] of Object.entries(file.users)) {
    const key = typeof entry?.keyEnv === 'string' ? envValue(env, entry.keyEnv) : null;
    if (!key) throw new Error(`${path}: users.${user}.keyEnv names no set environment variable`);
    users[user] = key;
  }
  const readOnlyKey = file.readOnlyKeyEnv ? envValue(env, file.readOnlyKeyEnv) : null;
  if (file.readOnlyKeyEnv && !readOnlyKey) throw new Error(`${path}: readOnlyKeyEnv ${file.readOnlyKeyEnv} is not set`);
  const secret = file.signingSecretEnv ? envValue(env, file.signingSecretEnv) : null;
  if (file.signingSecretEnv && !secret) throw new Error(`${path}: signingSecretEnv ${file.signingSecretEnv} is not set`);
  return { options: { url: file.url, users, readOnlyKey }, secret, port: file.port ?? 8787, host: file.host ?? '127.0.0.1' };
}
