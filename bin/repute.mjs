#!/usr/bin/env node
// The `repute` executable: runs the TypeScript sources through tsx, so no build step is needed.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
