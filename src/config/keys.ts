import { configError } from './errors.js';
import type { Identity } from '../domain/identity.js';
import type { ApiKeyEntry, Role } from './types.js';

const ROLE_RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };
const ROLES = Object.keys(ROLE_RANK) as Role[];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as string[]).includes(value);
}

/** Role order viewer < operator < admin: a route open to a role is open to every higher role. */
export function roleAtLeast(actual: Role, required: Role): boolean {
  return ROLE_RANK[actual] >= ROLE_RANK[required];
}

/** The identity a key stands for: what every route and domain module is told of its caller. */
export function identityOf(entry: ApiKeyEntry): Identity {
  return {
    actor: entry.actor,
    role: entry.role,
    apiKeyLabel: entry.label,
    apiKeyExpiresAt: entry.expiresAt ? entry.expiresAt.toISOString() : null,
    groups: entry.groups,
  };
}

/** Whether a key is accepted at `now`: active and not expired. */
export const keyUsable = (entry: ApiKeyEntry, now: Date) => entry.active && (entry.expiresAt === null || entry.expiresAt.getTime() > now.getTime());

/**
 * The identity of an actor's usable key (of several, the one with the highest role), or null
 * when the actor has none: who an approval link names must still hold a key when it is used.
 */
export function actorIdentity(keys: readonly ApiKeyEntry[], actor: string, now: Date): Identity | null {
  const usable = keys.filter((entry) => entry.actor === actor && keyUsable(entry, now));
  if (usable.length === 0) return null;
  return identityOf(usable.reduce((best, entry) => (ROLE_RANK[entry.role] > ROLE_RANK[best.role] ? entry : best)));
}

function highestRole(roles: Role[]): Role {
  return roles.reduce((best, r) => (ROLE_RANK[r] > ROLE_RANK[best] ? r : best));
}

function parseExpiry(value: unknown, where: string): Date | null {
  if (value === undefined || value === null || value === '') return null;
  const date = typeof value === 'number' ? new Date(value) : new Date(String(value));
  if (Number.isNaN(date.getTime())) throw configError(`${where}: expiresAt is not a valid date or epoch ms`);
  return date;
}

/** Splits `ops:v2` into actor `ops` and version `v2`. */
export function splitLabel(label: string): { actor: string; version: string | null } {
  const idx = label.lastIndexOf(':');
  if (idx <= 0 || idx === label.length - 1) return { actor: label, version: null };
  return { actor: label.slice(0, idx), version: label.slice(idx + 1) };
}

/** Group names are short words (letters, digits, `.`, `_`, `-`) so they read the same in config, logs and answers. */
const GROUP_NAME = /^[A-Za-z0-9._-]{1,100}$/;

function parseGroups(value: unknown, where: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((g) => typeof g === 'string' && GROUP_NAME.test(g))) {
    throw configError(`${where}: groups must be an array of names (letters, digits, ".", "_", "-"; at most 100 characters)`);
  }
  return [...new Set(value as string[])];
}

function describeEntry(index: number, label: unknown): string {
  return `API_KEY_ROTATION entry ${index + 1}${typeof label === 'string' ? ` (${label})` : ''}`;
}

/** Parses API_KEY_ROTATION (JSON array) and API_KEY into key entries; any malformed entry is a start-up error. */
export function parseApiKeys(rotation: string | undefined, single: string | undefined): ApiKeyEntry[] {
  const entries: ApiKeyEntry[] = [];
  if (rotation !== undefined && rotation.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(rotation);
    } catch {
      throw configError('API_KEY_ROTATION is not valid JSON');
    }
    if (!Array.isArray(parsed)) throw configError('API_KEY_ROTATION must be a JSON array');
    parsed.forEach((raw: unknown, index) => {
      if (typeof raw !== 'object' || raw === null) throw configError(`${describeEntry(index, undefined)} is not an object`);
      const item = raw as Record<string, unknown>;
      const where = describeEntry(index, item.label);
      if (typeof item.key !== 'string' || item.key.length < 8) {
        throw configError(`${where}: key must be a string of at least 8 characters`);
      }
      let role: Role;
      if (item.role !== undefined) {
        if (!isRole(item.role)) throw configError(`${where}: role must be viewer, operator or admin`);
        role = item.role;
      } else if (Array.isArray(item.roles) && item.roles.length > 0) {
        if (!item.roles.every(isRole)) throw configError(`${where}: roles must hold only viewer, operator or admin`);
        role = highestRole(item.roles as Role[]);
      } else {
        throw configError(`${where}: a role (or roles) is required`);
      }
      const version = item.version !== undefined ? String(item.version) : String(index + 1);
      const label = typeof item.label === 'string' && item.label !== '' ? item.label : `rotated-api-key-v${version}`;
      const split = splitLabel(label);
      entries.push({
        secret: item.key,
        label,
        actor: split.actor,
        version: split.version,
        role,
        expiresAt: parseExpiry(item.expiresAt, where),
        active: item.active !== false,
        groups: parseGroups(item.groups, where),
      });
    });
  }
  if (single !== undefined && single !== '') {
    entries.push({
      secret: single,
      label: 'primary-api-key',
      actor: 'primary-api-key',
      version: null,
      role: 'admin',
      expiresAt: null,
      active: true,
      groups: [],
    });
  }
  return entries;
}
