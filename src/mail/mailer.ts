import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';

/**
 * Outgoing mail over SMTP (`SMTP_URL`, e.g. `smtp://127.0.0.1:1025`; `smtps://user:pass@host` for
 * TLS), sent with nodemailer from `MAIL_FROM`. `npm start` runs a local mail catcher (maildev) when
 * SMTP_URL is not set, so mail is readable in its web inbox. With no SMTP at all, outside
 * production, the message is written to the log instead (so a developer can still follow a link);
 * in production it is not (it may carry a secret) and the send fails.
 */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export type MailOutcome = 'sent' | 'logged';

export class MailNotConfigured extends Error {}

// One transport per SMTP URL (a process has one), made on first use.
const transports = new Map<string, Transporter>();

function transportFor(url: string): Transporter {
  let t = transports.get(url);
  if (!t) {
    // Short timeouts: a sign-up waits for the send; a dead relay must not hold the request for minutes.
    t = nodemailer.createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 });
    transports.set(url, t);
  }
  return t;
}

export async function sendMail(app: { config: Config; logger: Logger }, mail: Mail): Promise<MailOutcome> {
  const { smtpUrl, from } = app.config.mail;
  if (!smtpUrl) {
    if (app.config.env === 'production') throw new MailNotConfigured('SMTP_URL is not set: mail cannot be sent');
    app.logger.info(
      { to: mail.to, subject: mail.subject, text: mail.text },
      'no SMTP_URL: mail written to the log instead of sent (not in production)',
    );
    return 'logged';
  }
  // One recipient, exactly the stored address: as an object nodemailer does not parse it as an address list
  // (`a,b@x` would be two), and the envelope names the one RCPT TO.
  await transportFor(smtpUrl).sendMail({
    from,
    to: { name: '', address: mail.to },
    envelope: { from, to: [mail.to] },
    subject: mail.subject,
    text: mail.text,
  });
  return 'sent';
}

/**
 * Runs a mail's work (the budget check, the link row, the send) after the request has answered, so the answer takes
 * the same time whether a mail goes out or not (issue 54, finding 7: sign-up timing told a taken address from a new
 * one). A failure is only logged: the caller's answer never depended on it.
 */
export function mailInBackground(app: { logger: Logger }, what: string, work: () => Promise<unknown>): void {
  void Promise.resolve()
    .then(work)
    .catch((err: unknown) => app.logger.error({ err }, `${what} could not be sent`));
}
