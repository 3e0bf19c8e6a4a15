// Where invitation e-mails go: the SMTP server of SMTP_URL (a pool of connections, nodemailer), or
// without one, .eml files in MAIL_DIR (nodemailer's stream transport writes the exact message an
// SMTP server would receive: the demo's mail box), or nowhere (null: nothing is sent).
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { SendMailOptions, Transporter } from 'nodemailer';

export interface Mailer {
  /** Resolves once the server accepted the message (or the file is written); rejects with the server's answer. */
  send(message: SendMailOptions & { fileName?: string }): Promise<void>;
  close(): void;
  /** Where mail goes, for the start-up log (never the password). */
  readonly target: string;
  /** Messages sent at once. */
  readonly concurrency: number;
}

export interface MailSettings {
  smtpUrl: string | null;
  mailDir: string | null;
}

/** Connections kept open to the SMTP server, each sending one message at a time. */
export const SMTP_CONNECTIONS = 5;

export function createMailer(settings: MailSettings): Mailer | null {
  if (settings.smtpUrl) return smtpMailer(settings.smtpUrl);
  if (settings.mailDir) return fileMailer(settings.mailDir);
  return null;
}

function smtpMailer(url: string): Mailer {
  const transport: Transporter = nodemailer.createTransport({ url, pool: true, maxConnections: SMTP_CONNECTIONS, maxMessages: Number.POSITIVE_INFINITY });
  const parsed = new URL(url);
  return {
    async send(message) {
      const { fileName: _unused, ...options } = message;
      await transport.sendMail(options);
    },
    close: () => transport.close(),
    target: `${parsed.protocol}//${parsed.host}`,
    concurrency: SMTP_CONNECTIONS,
  };
}

function fileMailer(dir: string): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  let made: Promise<unknown> | null = null;
  return {
    async send(message) {
      const { fileName, ...options } = message;
      made ??= mkdir(dir, { recursive: true, mode: 0o700 });
      await made;
      const info = await transport.sendMail(options);
      const file = join(dir, `${fileName ?? Date.now()}.eml`);
      // Written beside and renamed: a reader never opens half a message.
      await writeFile(`${file}.tmp`, info.message as Buffer, { mode: 0o600 });
      await rename(`${file}.tmp`, file);
    },
    close: () => transport.close(),
    target: `files in ${dir}`,
    concurrency: 4,
  };
}
