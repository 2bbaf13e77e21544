import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Licence texts are a few KB; reading more than this of a file gains nothing. */
const MAX_TEXT_BYTES = 256 * 1024;

const LICENCE_FILE = /^(?:licen[cs]e|copying|unlicense)(?:[.-][\w.-]*)?$/i;
const README_FILE = /^readme(?:\.[\w]+)?$/i;
const NOTICE_FILE = /^notice(?:\.[\w]+)?$/i;

/** The compliance-relevant files at the top of a project folder, by name. */
export interface ProjectFiles {
  licences: string[];
  readme: string | null;
  notice: string | null;
  packageJson: boolean;
}

export function projectFiles(dir: string): ProjectFiles {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    names = [];
  }
  const isFile = (name: string) => {
    try {
      return statSync(join(dir, name)).isFile();
    } catch {
      return false;
    }
  };
  const files = names.filter(isFile);
  return {
    licences: files.filter((n) => LICENCE_FILE.test(n)),
    readme: files.find((n) => README_FILE.test(n)) ?? null,
    notice: files.find((n) => NOTICE_FILE.test(n)) ?? null,
    packageJson: files.includes('package.json'),
  };
}

/** The start of a text file (bounded), or null when it cannot be read. */
export function readTextHead(path: string): string | null {
  let fd: number | null = null;
  try {
    fd = openSync(path, 'r');
    const buffer = Buffer.alloc(MAX_TEXT_BYTES);
    const length = readSync(fd, buffer, 0, MAX_TEXT_BYTES, 0);
    return buffer.subarray(0, length).toString('utf8');
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** A package.json as an object, or null when it is absent, unreadable or not a JSON object. */
export function readManifest(path: string): Record<string, unknown> | null {
  const text = readTextHead(path);
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The licence files of a folder, for dependencies whose manifest names no licence. */
export function licenceFilesIn(dir: string): string[] {
  return projectFiles(dir).licences;
}
