// A real SMTP server for tests (smtp-server on a loopback port) that parses every message it
// accepts (mailparser), and can be told to refuse some with an SMTP answer.
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string;
  parsed: ParsedMail;
  raw: string;
}

export interface MailSink {
  url: string;
  port: number;
  mails: ReceivedMail[];
  /** Refuse the n-th message (0-based, counting refusals) with this SMTP code and text; undefined accepts. */
  refuse(fn: ((index: number) => { code: number; message: string } | undefined) | null): void;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/** `delayMs`: how long the server takes to accept each message (a slow SMTP server). */
export async function startMailSink(options: { delayMs?: number } = {}): Promise<MailSink> {
  const mails: ReceivedMail[] = [];
  let refuse: ((index: number) => { code: number; message: string } | undefined) | null = null;
  let seen = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const refusal = refuse?.(seen++);
        if (refusal) {
          const error = Object.assign(new Error(refusal.message), { responseCode: refusal.code });
          callback(error);
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw).then((parsed) => {
          mails.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), parsed, raw });
          if (options.delayMs) setTimeout(callback, options.delayMs);
          else callback();
        }, callback);
      });
    },
  });
  // A client killed mid-message resets its connection: expected here (the kill tests), not a failure.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`, port, mails,
    refuse: (fn) => {
      refuse = fn;
      seen = 0;
    },
    async waitFor(count, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      while (mails.length < count) {
        if (Date.now() > until) throw new Error(`expected ${count} e-mails, got ${mails.length}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return mails;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
