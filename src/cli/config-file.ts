import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { UsageError } from './usage-error.js';

export interface LoginFile {
  url: string;
  apiKey: string;
}

/** `$XDG_CONFIG_HOME/orch/config.json`, else `~/.config/orch/config.json`. */
export function loginFilePath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(env.HOME ?? homedir(), '.config');
  return join(base, 'orch', 'config.json');
}

/**
 * Reads the login file. It holds a service key, so a file that others may read (any group or
 * other permission bit) is refused rather than used: the key may already have leaked.
 */
export function readLoginFile(path: string): LoginFile | null {
  if (!existsSync(path)) return null;
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw new UsageError(`${path} is readable by others (mode ${mode.toString(8).padStart(3, '0')}); run 'chmod 600 ${path}' or 'orch login' again`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new UsageError(`${path} is not valid JSON; run 'orch login' again`);
  }
  const file = parsed as Partial<LoginFile>;
  if (typeof file.url !== 'string' || typeof file.apiKey !== 'string') throw new UsageError(`${path} lacks url or apiKey; run 'orch login' again`);
  return { url: file.url, apiKey: file.apiKey };
}

/** Writes the login file with mode 0600 (and its folder 0700), replacing any earlier one. */
export function writeLoginFile(path: string, login: LoginFile): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  rmSync(path, { force: true });
  writeFileSync(path, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(path, 0o600);
}

export function removeLoginFile(path: string): boolean {
  if (!existsSync(path)) return false;
  rmSync(path);
  return true;
}
