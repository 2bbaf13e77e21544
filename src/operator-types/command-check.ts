import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/**
 * Why a program's command cannot be run, in an operator's words, or null when it can: checked
 * before the run, since a sandbox reports an exec failure only as a line of its own output.
 * A command with a `/` is a file relative to the type's folder; a bare name is looked up on PATH.
 */
export function commandProblem(command: string, folder: string, path: string | undefined): string | null {
  const candidates = command.includes('/')
    ? [isAbsolute(command) ? command : resolve(folder, command)]
    : (path ?? '').split(delimiter).filter((dir) => dir !== '').map((dir) => join(dir, command));
  let found: string | null = null;
  for (const file of candidates) {
    try {
      if (statSync(file).isFile()) {
        found = file;
        break;
      }
    } catch {
      // not here
    }
  }
  if (found === null) {
    return command.includes('/')
      ? `the command ${JSON.stringify(command)} does not exist in the type's folder`
      : `the command ${JSON.stringify(command)} was not found on PATH`;
  }
  try {
    accessSync(found, constants.X_OK);
  } catch {
    return `the command ${JSON.stringify(command)} is not executable (chmod +x it, or name its interpreter first in "command")`;
  }
  return null;
}
