import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import { asUnavailable, isConnectionLoss } from '../../src/store/postgres/connection-loss.js';

describe('PostgreSQL connection loss', () => {
  it.each([
    [{ code: '57P01', message: 'terminating connection due to administrator command' }],
    [{ code: '57P03', message: 'the database system is starting up' }],
    [{ code: '08006', message: 'connection failure' }],
    [{ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5432' }],
    [new Error('Connection terminated unexpectedly')],
    [new Error('timeout exceeded when trying to connect')],
    [new Error('Client has encountered a connection error and is not queryable')],
  ])('counts %o as the database being away', (err) => {
    expect(isConnectionLoss(err)).toBe(true);
    const mapped = asUnavailable(err, '127.0.0.1:5432/test');
    expect(mapped).toBeInstanceOf(DomainError);
    expect((mapped as DomainError).code).toBe('unavailable');
    expect((mapped as DomainError).message).toContain('state database 127.0.0.1:5432/test is unreachable');
  });

  it.each([
    [{ code: '23505', message: 'duplicate key value violates unique constraint' }],
    [{ code: '42P01', message: 'relation "runs" does not exist' }],
    [new Error('something else')],
    [null],
    ['text'],
  ])('leaves %o as it is', (err) => {
    expect(isConnectionLoss(err)).toBe(false);
    expect(asUnavailable(err, 'x')).toBe(err);
  });

  it('keeps a domain error the store already chose', () => {
    const chosen = new DomainError('conflict', 'Connection terminated: but already classified');
    expect(asUnavailable(chosen, 'x')).toBe(chosen);
  });
});
