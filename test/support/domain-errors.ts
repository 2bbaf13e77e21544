import { expect } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';

/** The DomainError a promise rejects with (the test fails when it resolves or throws anything else). */
export async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}
