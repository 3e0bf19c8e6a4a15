// `repute demo`: a fresh demo database (a hotel group with two years of data), one API key per use,
// and, with --serve, the API served on it.
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DemoResult } from '../demo/generate.ts';
import type { DemoInvitations } from '../demo/invitations.ts';
import { DEFAULT_SEED } from '../demo/random.ts';
import { wholeNumber } from './accounts.ts';
import { serveUntilSignalled } from './serve.ts';
import { toCliError, withDatabase } from './support.ts';

/** Where the demo's invitation e-mails go (MAIL_DIR overrides it): beside the embedded database, else ./data/mail. */
function demoMailDir(databaseUrl: string): string {
  return databaseUrl.startsWith('sqlite:') ? join(dirname(databaseUrl.slice('sqlite:'.length)), 'mail') : join('data', 'mail');
}

export function registerDemo(program: Command): void {
  program.command('demo')
    .description('replace the database with fresh demo data and print API keys to try it (npm run demo = demo --serve)')
    .option('--serve', 'then serve the API on it (like repute serve)')
    .option('--force', 'wipe the database even if it holds data that is not from an earlier demo (always needed on PostgreSQL)')
    .option('--seed <n>', 'seed of the random generator: the same seed gives the same data', wholeNumber, DEFAULT_SEED)
    .addHelpText('after', [
      '',
      'With the default DATABASE_URL (sqlite:./data/repute.db) the file is deleted and recreated, unless it holds',
      'accounts other than the demo\'s (then --force is needed). On PostgreSQL every table of the schema is dropped,',
      'and only with --force.',
      '',
      'Example:',
      '  $ npx repute demo --serve',
    ].join('\n'))
    .action(async (options: { serve?: boolean; force?: boolean; seed: number }) => {
      // Without an SMTP server the demo's invitation e-mails are written as files a newcomer can open.
      const env = loadConfig();
      const config = loadConfig({ ...process.env, MAIL_DIR: process.env.MAIL_DIR || demoMailDir(env.databaseUrl) });
      // Loaded on use, not at the top: `repute --help` need not load the generator and the drivers.
      const [{ resetForDemo }, { generateDemo }, { createDemoInvitations }, { seeded }] = await Promise.all([
        import('../demo/reset.ts'), import('../demo/generate.ts'), import('../demo/invitations.ts'), import('../demo/random.ts'),
      ]);
      try {
        await resetForDemo(config.databaseUrl, options.force ?? false);
      } catch (error) {
        throw toCliError(error, config);
      }
      process.stderr.write('creating demo data…\n');
      const mailDir = config.mailDir!;
      // The previous demo's e-mails would link to invitations that no longer exist.
      rmSync(mailDir, { recursive: true, force: true });
      const result = await withDatabase(async (database) => {
        const demo = await generateDemo(database, options.seed);
        const invitations = await createDemoInvitations(database.db, seeded(options.seed + 1), demo.accountId, {
          secretKey: config.secretKey, publicUrl: config.publicUrl, mailFrom: config.mailFrom, mailDir,
        });
        return { ...demo, invitations };
      });
      const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
      process.stdout.write(describe(result, config.databaseUrl, `http://${host}:${config.port}`, options.seed, config.smtpUrl !== null));
      if (options.serve) {
        // Everything above is for the reader; what follows is the server's log (pino's JSON lines).
        process.stdout.write('\nStarting the server. Its log follows, one JSON line per event (pipe through npx pino-pretty to read it more easily):\n');
        const server = await serveUntilSignalled(config);
        process.stdout.write(`\nServing the API on ${server.url} (Ctrl-C to stop).\n`);
      } else {
        process.stdout.write('\nStart the API with: npm start   (or: npx repute serve)\n');
      }
    });
}

function describe(r: DemoResult & { invitations: DemoInvitations }, databaseUrl: string, origin: string, seed: number, smtp: boolean): string {
  const base = `${origin}/api/v4`;
  return [
    `Demo data ready in ${databaseUrl} (seed ${seed}):`,
    `  account          ${r.accountId}  (1 root node, ${r.nodes.regions} regions, ${r.nodes.properties} hotels)`,
    `  reviews          ${r.reviews.total} on ${r.reviews.platforms.join(', ')}; languages ${r.reviews.languages.join(', ')}; ${r.reviews.replied} replied, ${r.reviews.hidden} hidden`,
    `  surveys          ${r.surveys.published} published, ${r.surveys.drafts} draft; ${r.surveys.responses} responses (${r.surveys.completed} completed)`,
    `  insights         ${r.topics} topics, ${r.mentions} mentions, ${r.recommendations} recommendations; ${r.alertRules} alert rule`,
    '',
    'API keys (shown this once; only their hashes are stored):',
    ...r.keys.map((k) => `  ${k.label} (${k.scopes.join(', ')})\n      ${k.key}`),
    '',
    `Dashboard: ${origin}/    sign in as ${r.owner.email} with the password ${r.owner.password}`,
    '           (an owner of the whole group; shown this once, only its scrypt hash is stored)',
    '',
    `Survey:    ${r.invitations.link}`,
    `           a guest's invitation link; ${r.invitations.sent} invitation e-mails are in ${r.invitations.mailDir}/*.eml (open one in a`,
    // The demo's own e-mails always go to files (its guests' addresses are made up); the worker sends the later ones.
    `           mail program), ${r.invitations.scheduled} more go out tomorrow${smtp ? ' through SMTP_URL.' : '. Set SMTP_URL to send them for real.'}`,
    '',
    `Base URL:  ${base}    (interactive docs: ${base}/docs)`,
    'First call:',
    `  curl -H "Authorization: Bearer ${r.keys[0]!.key}" "${base}/reviews?limit=2"`,
    '',
    'Webhooks to a receiver on this machine (127.0.0.1, localhost) or a private network are refused unless',
    'WEBHOOK_ALLOW_PRIVATE admits its address, e.g. WEBHOOK_ALLOW_PRIVATE=127.0.0.1 npm run demo. A refused',
    'endpoint gets one warning in the server log; each attempt\'s reason is in GET /admin/v1/deliveries/{id}.',
    '',
  ].join('\n');
}
