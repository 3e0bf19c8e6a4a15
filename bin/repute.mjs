#!/usr/bin/env node
// The `repute` executable: runs the JavaScript that bin/build.mjs compiled from src/ into dist/ at
// `npm install`. A source newer than the compiled output (a developer's edit) is compiled again
// first: a cheap check (one stat per source file), and about 0.2 s when it rebuilds.
import { setFlagsFromString } from 'node:v8';
import { build, isStale } from './build.mjs';

// No allocation-site pretenuring. Under load V8 saw a request's database rows (pg's row objects)
// still alive at a young-generation collection and began allocating them in the old generation
// from then on, where they die unseen until the next full collection and hold the strings they
// point to: measured on GET /api/v4/reviews with PostgreSQL, 2 MB promoted per scavenge, scavenges
// of 5-10 ms instead of about 1, and 15-30 % more CPU per request (bench/floor.ts; README,
// Performance). A request's objects all die young, so none is worth pretenuring. The flag only
// steers a GC heuristic and is read at each collection, so setting it here, before anything runs, is safe.
setFlagsFromString('--no-allocation-site-pretenuring');

if (isStale()) await build();
// DEBUG=repute prints stack traces (src/main.ts): let them name the TypeScript sources, not dist/.
if (/(^|,)\s*repute\s*(,|$)/.test(process.env.DEBUG ?? '')) process.setSourceMapsEnabled(true);
await import('../dist/main.js');
