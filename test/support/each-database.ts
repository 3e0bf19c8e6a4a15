// Runs a test body once per configured database, each with a fresh app.
import { test, type TestContext } from 'node:test';
import { createTestApp, dialects, type TestApp, type TestAppOptions } from './app.ts';

export function eachDatabase(name: string, body: (t: TestApp, tc: TestContext) => Promise<void>, options: TestAppOptions = {}): void {
  for (const dialect of dialects) {
    test(`${name} [${dialect}]`, async (tc) => {
      const app = await createTestApp(dialect, options);
      try {
        await body(app, tc);
      } finally {
        await app.close();
      }
    });
  }
}
