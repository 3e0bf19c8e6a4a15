// Makes a folder and any missing parents, one level at a time. Node's mkdirSync({ recursive: true })
// never returns for a path under a pseudo file system such as /proc (`sqlite:/proc/x/repute.db`
// hung start-up); made one level at a time, the first level refused fails at once with its code.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export function makeFolder(path: string, mode: number): void {
  const missing: string[] = [];
  for (let folder = path; !existsSync(folder); folder = dirname(folder)) {
    missing.unshift(folder);
    if (dirname(folder) === folder) break;
  }
  for (const folder of missing) mkdirSync(folder, { mode });
}
