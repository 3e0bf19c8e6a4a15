// Run by .ci/run before the suite: PostgreSQL and Redis must answer, or CI fails (it never skips them).
import pg from 'pg';
import { Redis } from 'ioredis';

const pgUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.REDIS_URL;
if (!pgUrl || !redisUrl) {
  console.error('TEST_DATABASE_URL and REDIS_URL must both be set');
  process.exit(1);
}
try {
  const client = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 5000 });
  await client.connect();
  await client.query('select 1');
  await client.end();
  const redis = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 5000, maxRetriesPerRequest: 1 });
  await redis.connect();
  await redis.ping();
  redis.disconnect();
  console.log(`services reachable: ${pgUrl}, ${redisUrl}`);
} catch (error) {
  console.error(`a required service is not reachable: ${(error as Error).message}`);
  process.exit(1);
}
