import express, { type Express } from 'express';
import type { Readable } from 'node:stream';
import type { AppContext } from '../../platform/context.js';
import { readContent } from '../../files/content.js';
import { openContentLink } from '../../sharing/content-links.js';

/**
 * The content origin (CONTENT_URL; by default a second port of the API process): the only place
 * uploaded bytes are served with their own type, so HTML, SVG and PDF render there and never as
 * active content of the app origin. The credential is a short-lived signed content link minted by
 * the viewer after authorization (src/sharing/content-links.ts); no cookie is read. Everything but
 * PDF (which Chromium's viewer will not show in a sandbox) also carries `Content-Security-Policy:
 * sandbox allow-scripts` with no `allow-same-origin`: an opaque origin that can reach no storage,
 * no cookie and nothing on the network (`connect-src 'none'`).
 */
export function createContentApp(ctx: AppContext): Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  const webOrigin = new URL(ctx.config.http.webUrl).origin;

  app.get('/c/:token/:name', async (req, res) => {
    const blob = await openContentLink(ctx, String(req.params.token));
    if (!blob) return res.status(404).type('text/plain').send('not found\n');
    const pdf = blob.contentType.split(';')[0].trim().toLowerCase() === 'application/pdf';
    res.setHeader('Content-Type', blob.contentType);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader(
      'Content-Security-Policy',
      pdf
        ? `default-src 'none'; frame-ancestors ${webOrigin}`
        : `sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline' data:; img-src data: blob: 'self'; ` +
            `font-src data:; media-src 'self' data:; connect-src 'none'; form-action 'none'; frame-ancestors ${webOrigin}`,
    );
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.setHeader('Cache-Control', 'private, no-store');
    res.setHeader('Content-Disposition', `inline; filename*=UTF-8''${encodeURIComponent(blob.path)}`);
    res.setHeader('Content-Length', String(blob.size));
    const got = await readContent(ctx, blob);
    if (Buffer.isBuffer(got)) res.end(got);
    else (got as Readable).pipe(res);
  });

  app.use((_req, res) => {
    res.status(404).type('text/plain').send('not found\n');
  });
  app.use(((err, _req, res, _next) => {
    ctx.logger.error({ err }, 'content origin error');
    if (!res.headersSent) res.status(500).type('text/plain').send('error\n');
  }) as express.ErrorRequestHandler);
  return app;
}
