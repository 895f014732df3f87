import type { Request, Response } from 'express';

/**
 * Runs an upload that streams the request body. When it fails before the body was fully read, the connection is
 * closed after the answer instead of reading (and storing nothing of) the rest of a body up to the upload limit.
 */
export async function whileReadingBody<T>(req: Request, res: Response, upload: () => Promise<T>): Promise<T> {
  try {
    return await upload();
  } catch (err) {
    if (!req.complete) {
      res.setHeader('Connection', 'close');
      req.resume();
    }
    throw err;
  }
}
