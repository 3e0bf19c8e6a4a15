// Import progress on stderr: a cli-progress bar on a terminal, a plain line every 10 seconds otherwise.
// Rejection messages go through log() so they print above the bar instead of through it.
import cliProgress from 'cli-progress';

export interface Progress {
  update(progress: { lines: number; bytes: number }): void;
  log(message: string): void;
  stop(): void;
}

const PLAIN_EVERY_MS = 10_000;

/** totalBytes: the file's size, or null when reading stdin (no percentage then). */
export function progressReporter(stream: NodeJS.WriteStream, totalBytes: number | null): Progress {
  const started = Date.now();
  const rate = (lines: number) => Math.round(lines / Math.max((Date.now() - started) / 1000, 0.001));
  if (!stream.isTTY) {
    let last = started;
    return {
      update({ lines, bytes }) {
        if (Date.now() - last < PLAIN_EVERY_MS) return;
        last = Date.now();
        const share = totalBytes ? ` (${Math.floor((100 * bytes) / totalBytes)}%)` : '';
        stream.write(`import: ${lines} lines read${share}, ${rate(lines)} lines/s\n`);
      },
      log: (message) => { stream.write(`${message}\n`); },
      stop: () => {},
    };
  }
  const multi = new cliProgress.MultiBar({
    stream,
    format: totalBytes
      ? 'importing |{bar}| {percentage}% | {lines} lines | {rate} lines/s | eta {eta_formatted}'
      : 'importing | {lines} lines | {rate} lines/s',
    barCompleteChar: '\u2588',
    barIncompleteChar: '\u2591',
    hideCursor: true,
    etaBuffer: 50,
  });
  const bar = multi.create(totalBytes ?? 0, 0, { lines: 0, rate: 0 });
  return {
    update: ({ lines, bytes }) => bar.update(totalBytes ? Math.min(bytes, totalBytes) : 0, { lines, rate: rate(lines) }),
    log: (message) => multi.log(`${message}\n`),
    stop: () => multi.stop(),
  };
}
