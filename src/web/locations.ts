// Where the pages' templates and static files live. They stay beside the sources (src/web/) rather
// than in the bundle: the bundle in dist/ runs from dist/ or dist/chunks/, so paths are found from
// the package root (the folder holding package.json), whichever file asks.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json not found above src/web');
    dir = parent;
  }
  return dir;
}

const ROOT = packageRoot();
const require = createRequire(join(ROOT, 'package.json'));

export const VIEWS_DIR = join(ROOT, 'src', 'web', 'views');
export const ASSETS_DIR = join(ROOT, 'src', 'web', 'assets');
/** The browser libraries, served from the installed packages: no CDN, works offline. */
export const VENDOR_DIRS = [
  dirname(require.resolve('htmx.org/dist/htmx.min.js')),
  dirname(require.resolve('uplot/dist/uPlot.iife.min.js')),
];

/**
 * Added to a page that answers a POST (src/web/assets/forget-post.js): its reload, or a way back to
 * it, is then a GET of the page, never the form sent again (a second API key, a resubmission prompt).
 */
export const FORGET_POST_JS = '/assets/forget-post.js';

/** Keeps inbox replies typed but not yet saved in the browser (src/web/assets/keep-drafts.js). */
export const KEEP_DRAFTS_JS = '/assets/keep-drafts.js';

/** Copies a key or secret shown once (src/web/assets/copy-secret.js). */
export const COPY_SECRET_JS = '/assets/copy-secret.js';
