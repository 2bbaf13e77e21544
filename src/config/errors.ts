import { DomainError } from '../domain/errors.js';

/**
 * A configuration problem (code `invalid_config`): environment, config file, agent manifests or
 * state target. At start-up main.ts prints `fatal: <message>` and exits 1, so the message names
 * the setting and what is wrong with it, never a secret's value.
 */
export function configError(message: string): DomainError {
  return new DomainError('invalid_config', message);
}

/** A required secret is absent; the message is exactly `<NAME> is required`. */
export function missingSecret(name: string): DomainError {
  return configError(`${name} is required`);
}
