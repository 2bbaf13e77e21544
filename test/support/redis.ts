import { Redis } from 'ioredis';

/** Deletes every key under `prefix`; used after a suite that ran against a shared Redis. */
export async function deleteKeysWithPrefix(redisUrl: string, prefix: string): Promise<void> {
  const client = new Redis(redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await client.del(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}

/** Whether `key` exists, asked on a connection of its own. */
export async function keyExists(redisUrl: string, key: string): Promise<boolean> {
  const client = new Redis(redisUrl);
  try {
    return (await client.exists(key)) === 1;
  } finally {
    client.disconnect();
  }
}
