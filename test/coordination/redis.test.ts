import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { describe } from 'vitest';
import { RedisCoordination } from '../../src/coordination/redis.js';
import { coordinationConformance } from './conformance.js';
import { deleteKeysWithPrefix, keyExists } from '../support/redis.js';

const url = process.env.TEST_REDIS_URL;

describe.skipIf(!url)('RedisCoordination (needs TEST_REDIS_URL)', () => {
  const keyPrefix = `orch-test-${randomUUID()}:`;
  coordinationConformance('RedisCoordination conformance', {
    kind: 'kvstore',
    create: () => RedisCoordination.connect(url!, pino({ level: 'silent' }), { keyPrefix, connectTimeoutMs: 1500 }),
    createWithTagRetention: (ms) => RedisCoordination.connect(url!, pino({ level: 'silent' }), { keyPrefix, connectTimeoutMs: 1500, tagRetentionMs: ms }),
    cleanup: () => deleteKeysWithPrefix(url!, keyPrefix),
    holdsTag: (_, tag) => keyExists(url!, `${keyPrefix}tag:${tag}`),
  });
});
