import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/**
 * A real SMTP server on 127.0.0.1 that keeps what it receives, for suites that read the service's
 * mail (verification links): start it, pass `url` as SMTP_URL to the test API, read `messages`.
 */
export interface ReceivedMail {
  to: string[];
  /** The message as sent, with quoted-printable soft breaks and escapes undone. */
  text: string;
}

export interface Mailbox {
  url: string;
  messages: ReceivedMail[];
  /** The newest message to `to` received after `after` messages, waiting up to 10 s. */
  waitFor(to: string, after?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

const decodeQuotedPrintable = (raw: string) =>
  raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

const open = new Map<string, Mailbox>();
const byApi = new Map<string, Mailbox>();

/** The mailbox an API started by startTestApi sends to (its own, or the one a suite passed as SMTP_URL). */
export function mailboxOfApi(apiUrl: string): Mailbox {
  const found = byApi.get(apiUrl);
  if (!found) throw new Error(`no test mailbox for ${apiUrl}`);
  return found;
}

export function attachMailbox(apiUrl: string, smtpUrl: string): Mailbox | undefined {
  const found = open.get(smtpUrl);
  if (found) byApi.set(apiUrl, found);
  return found;
}

export const detachMailbox = (apiUrl: string) => byApi.delete(apiUrl);

/** `delayMs`: the server takes that long to accept each message (a slow relay). */
export async function startMailbox(opts: { delayMs?: number } = {}): Promise<Mailbox> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () =>
        setTimeout(() => {
          const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
          messages.push({ to, text: decodeQuotedPrintable(Buffer.concat(chunks).toString('utf8')) });
          callback();
        }, opts.delayMs ?? 0),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const url = `smtp://127.0.0.1:${port}`;
  const mailbox: Mailbox = {
    url,
    messages,
    async waitFor(to, after = 0) {
      const want = to.toLowerCase();
      const deadline = Date.now() + 10_000;
      for (;;) {
        const found = messages
          .slice(after)
          .filter((m) => m.to.includes(want))
          .at(-1);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no mail to ${to} within 10 s`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () => {
      open.delete(url);
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  open.set(url, mailbox);
  return mailbox;
}

/** The verification link (path and query) in a mail. */
export function verificationPath(mail: ReceivedMail): string {
  const m = /https?:\/\/[^/\s]+(\/auth\/verify\?token=adev_[\w-]+(?:&return_to=\S+)?)/.exec(mail.text);
  if (!m) throw new Error(`no verification link in:\n${mail.text}`);
  return m[1];
}
