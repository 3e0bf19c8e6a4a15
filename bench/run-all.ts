// `npm run bench`: every benchmark in turn with its default sizes, each in its own process (so one's
// memory and caches do not colour the next). Stops at the first failure. Run one file directly to
// pass it options.
import { spawnSync } from 'node:child_process';

const BENCHMARKS = ['cli-start.ts', 'reviews.ts', 'import.ts', 'guests.ts', 'webhooks.ts', 'client-sync.ts', 'faults.ts', 'redis-outage.ts', 'extraction.ts', 'insights-pipeline.ts', 'dashboard.ts', 'invitations.ts', 'retention.ts', 'floor.ts'];

for (const file of BENCHMARKS) {
  console.log(`\n=== bench/${file} ===`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', new URL(file, import.meta.url).pathname], { stdio: 'inherit' });
  if (run.status !== 0) {
    console.error(`bench/${file} failed (exit ${run.status ?? run.signal})`);
    process.exit(1);
  }
}
