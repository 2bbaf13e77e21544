/**
 * The demo's keys, kept between starts: one bearer key per role and a webhook secret, in a file
 * of the demo's state folder that only its owner may read (mode 0600). A restart reuses them, so
 * a console login and the commands the demo printed keep working; `--new-keys` replaces them.
 */

import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import type { AppConfig } from '../config/types.js';
import { configError } from '../config/errors.js';

export const DEMO_ROLES = ['viewer', 'operator', 'admin'] as const;
export type DemoRole = (typeof DEMO_ROLES)[number];

export interface DemoKeys {
  keys: Record<DemoRole, string>;
  webhookSecret: string;
  createdAt: string;
}

export const DEMO_KEYS_FILE = 'demo-keys.json';
const OWNER_ONLY = 0o600;

/**
 * The folder the demo keeps its state in: the folder of the state file (or SQLite file); for a
 * database target, which has no folder, the logs folder.
 */
export function demoStateFolder(config: Pick<AppConfig, 'stateTarget' | 'logsDir'>): string {
  const target = config.stateTarget;
  if (target.startsWith('sql:')) return dirname(target.slice('sql:'.length));
  if (isAbsolute(target)) return dirname(target);
  return config.logsDir;
}

const secret = () => randomBytes(24).toString('base64url');

function freshKeys(now: Date): DemoKeys {
  const keys = Object.fromEntries(DEMO_ROLES.map((role) => [role, `demo-${role}-${secret()}`])) as Record<DemoRole, string>;
  return { keys, webhookSecret: secret(), createdAt: now.toISOString() };
}

/** The stored keys, or null when the file does not exist; a file that is not the demo's is an error naming the way out. */
function readKeys(path: string): DemoKeys | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const refuse = (why: string) => configError(`${path} ${why}; run the demo with --new-keys to replace it`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw refuse('is not valid JSON');
  }
  const stored = parsed as Partial<DemoKeys> | null;
  const keys = stored?.keys as Partial<Record<DemoRole, unknown>> | undefined;
  if (!keys || typeof stored?.webhookSecret !== 'string' || !DEMO_ROLES.every((role) => typeof keys[role] === 'string' && keys[role] !== '')) {
    throw refuse(`does not hold a key for each role (${DEMO_ROLES.join(', ')}) and a webhook secret`);
  }
  return { keys: keys as Record<DemoRole, string>, webhookSecret: stored.webhookSecret, createdAt: typeof stored.createdAt === 'string' ? stored.createdAt : 'unknown' };
}

/** Written beside the file, owner-only from its first byte, then moved over it: a reader never sees half a file. */
function writeKeys(path: string, keys: DemoKeys): void {
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.${process.pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify(keys, null, 2)}\n`, { mode: OWNER_ONLY, flag: 'w' });
  // The mode of writeFileSync passes the umask; a umask cannot widen 0600, but an existing file keeps its own.
  chmodSync(partial, OWNER_ONLY);
  renameSync(partial, path);
}

export interface KeptKeys extends DemoKeys {
  path: string;
  /** `made`: new keys written (first start, or --new-keys); `reused`: the stored ones. */
  outcome: 'made' | 'reused';
}

/** The demo's keys from `folder`: the stored ones, or new ones when there are none or `renew` asks for them. */
export function keepDemoKeys(folder: string, options: { renew: boolean; now?: Date }): KeptKeys {
  const path = join(folder, DEMO_KEYS_FILE);
  const stored = options.renew ? null : readKeys(path);
  if (stored) {
    // A copy restored from a backup may have come back readable by others.
    chmodSync(path, OWNER_ONLY);
    return { ...stored, path, outcome: 'reused' };
  }
  const made = freshKeys(options.now ?? new Date());
  writeKeys(path, made);
  return { ...made, path, outcome: 'made' };
}

/** The keys as API_KEY_ROTATION entries, one per role, labelled `demo-<role>`. */
export function demoKeyRotation(keys: Record<DemoRole, string>): string {
  return JSON.stringify(DEMO_ROLES.map((role) => ({ key: keys[role], label: `demo-${role}`, role })));
}
