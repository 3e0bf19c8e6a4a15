// `repute import FILE`: NDJSON of reviews, surveys, responses, topics, mentions and recommendations
// (format: README.md, "Importing: repute import FILE"), with progress, rejected lines reported, and a summary.
import { createReadStream, statSync } from 'node:fs';
import type { Command } from 'commander';
import type { ImportSummary } from '../import/run.ts';
import { wholeNumber } from './accounts.ts';
import { CliError, EXIT_USAGE, withDatabase } from './support.ts';

const MAX_PRINTED_REJECTIONS = 1000;
const LISTED_IN_SUMMARY = 50;

/** The importer, loaded when the command runs (not at the top: `repute --help` need not load it). */
const loadImporter = async () => {
  const [{ progressReporter }, { importNdjson, MAX_LISTED, total }, { RECORD_TYPES }] = await Promise.all([
    import('../import/progress.ts'), import('../import/run.ts'), import('../import/format.ts'),
  ]);
  return { progressReporter, importNdjson, MAX_LISTED, total, RECORD_TYPES };
};
type Importer = Awaited<ReturnType<typeof loadImporter>>;

export function registerImport(program: Command): void {
  program.command('import')
    .description('import NDJSON records (one JSON object a line, "-" reads stdin); bad lines are rejected and reported, the rest goes in')
    .argument('<file>', 'the NDJSON file, or - for stdin')
    .option('--batch-size <n>', 'reviews written per transaction', wholeNumber, 1000)
    .option('--json', 'print the summary as JSON on stdout')
    .addHelpText('after', [
      '',
      'Each line: {"type": "review"|"survey"|"response"|"topic"|"mention"|"recommendation", "account_id": "…", …the admin body}.',
      'Reviews are upserted by (account, platform, external_id): a new one is created (review.received, alert rules),',
      'an existing one updated in place. Other records are created once, by their identity: "external_id" when the line',
      'has one, else their content (README); a record imported before is left unchanged. Surveys and topics may carry "ref": "name" for',
      'later lines (survey_ref, parent_label_ref, canonical_label_ref, custom_category_ref); a mention names its',
      'review by review_id or "review": {"platform", "external_id"}. The README section "Importing" has every field.',
      '',
      'Rejected lines are printed on stderr as "line N: reason" and the import goes on.',
      'Exit status: 0 when the file was read to its end, even with rejected lines (see the summary);',
      '1 on a fatal error (unreadable file, database unreachable, bad configuration).',
      '',
      'Example:',
      '  $ repute import reviews.ndjson',
      '  $ gunzip -c export.ndjson.gz | repute import - --json',
    ].join('\n'))
    .action(async (file: string, options: { batchSize: number; json?: boolean }) => {
      if (options.batchSize < 1) throw new CliError('--batch-size must be at least 1', EXIT_USAGE);
      let size: number | null = null;
      if (file !== '-') {
        try {
          size = statSync(file).size;
        } catch (error) {
          throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
        }
      }
      const importer = await loadImporter();
      const { progressReporter, importNdjson } = importer;
      const summary = await withDatabase(async (database) => {
        const input = file === '-' ? process.stdin : createReadStream(file);
        const progress = progressReporter(process.stderr, size);
        let printed = 0;
        try {
          return await importNdjson(database, input, {
            batchSize: options.batchSize,
            onProgress: (p) => progress.update(p),
            onRejected: (line, reason) => {
              printed += 1;
              if (printed <= MAX_PRINTED_REJECTIONS) progress.log(`line ${line}: ${reason}`);
              else if (printed === MAX_PRINTED_REJECTIONS + 1) progress.log(`(more rejected lines: reasons no longer printed; see the summary)`);
            },
          });
        } finally {
          progress.stop();
        }
      });
      process.stdout.write(options.json ? `${JSON.stringify(summary, null, 2)}\n` : describe(summary, importer));
    });
}

function byType(counts: Record<string, number>, { RECORD_TYPES }: Importer): string {
  const parts = [...RECORD_TYPES, 'invalid'].filter((t) => (counts[t] ?? 0) > 0).map((t) => `${t} ${counts[t]}`);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

/** The human summary: counts by type, and the first rejected line numbers. */
export function describe(s: ImportSummary, importer: Importer): string {
  const { total, MAX_LISTED } = importer;
  const rejected = total(s.rejected);
  const lines = [
    `import finished: ${s.lines} records read`,
    `  created:   ${total(s.created)}${byType(s.created, importer)}`,
    `  updated:   ${total(s.updated)}${byType(s.updated, importer)}`,
    `  unchanged: ${total(s.unchanged)}${byType(s.unchanged, importer)}`,
    `  rejected:  ${rejected}${byType(s.rejected, importer)}`,
  ];
  if (rejected > 0) {
    const listed = s.rejected_lines.slice(0, LISTED_IN_SUMMARY);
    const more = rejected - listed.length;
    lines.push(`  rejected lines: ${listed.join(', ')}${more > 0 ? ` … and ${more} more${rejected > MAX_LISTED ? '' : ' (--json lists them all)'}` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}
