#!/usr/bin/env node
// The `repute` executable: runs the JavaScript that bin/build.mjs compiled from src/ into dist/ at
// `npm install`. A source newer than the compiled output (a developer's edit) is compiled again
// first: a cheap check (one stat per source file), and about 0.2 s when it rebuilds.
import { build, isStale } from './build.mjs';

if (isStale()) await build();
// DEBUG=repute prints stack traces (src/main.ts): let them name the TypeScript sources, not dist/.
if (/(^|,)\s*repute\s*(,|$)/.test(process.env.DEBUG ?? '')) process.setSourceMapsEnabled(true);
await import('../dist/main.js');
