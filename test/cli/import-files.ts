// NDJSON files for `repute import` tests: lines from objects (or raw text), written to a temporary file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ndjson = (lines: Array<object | string>): string =>
  `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`;

export function tempFile(content: string): { path: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'repute-import-'));
  const path = join(dir, 'import.ndjson');
  writeFileSync(path, content);
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
