import busboy from 'busboy';
import type { Readable } from 'node:stream';
import { AppError } from '../../lib/errors.js';
import type { Answer, OwnerCall } from './call.js';

/** The bounds of one multipart form (the upload's). */
export interface MultipartLimits {
  files: number;
  fileSize: number;
}

export interface UploadedFile {
  /** The browser's file name (no folder part). */
  filename: string;
  mimeType: string;
  stream: Readable;
}

/** An owner's multipart form: its fields, and its files one at a time, each admitted and charged by the kit. */
export interface UploadCall extends OwnerCall {
  files(): AsyncIterable<UploadedFile>;
}

interface Hooks {
  /** The form's refusal (expired CSRF token), if any; shown once the body is read. */
  refusal(call: UploadCall): Answer | undefined;
  render(answer: Answer): void;
  charge(): Promise<unknown>;
  run(call: UploadCall, settle: () => Promise<void>): Promise<void>;
}

/**
 * Reads the form with busboy: the fields arrive first (the forms put their hidden fields before the file input), so
 * when the first file (or the end) arrives the kit admits the form (CSRF) and then hands the files over in order. The
 * answer waits until the whole body is read (`settle`), so a refusal half way never cuts the upload's connection.
 */
export async function multipartCall(call: OwnerCall, limits: MultipartLimits, hooks: Hooks): Promise<void> {
  const { req } = call;
  const fields: Record<string, string> = {};
  const queue: UploadedFile[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  let failed: Error | undefined;
  let tooMany = false;
  let draining = false;
  const closedP = new Promise<void>((resolve) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        limits: { files: limits.files, fields: 10, fieldSize: 4096, fileSize: limits.fileSize + 1 },
        // Browsers send the file name as UTF-8 (résumé.md), not busboy's default latin1.
        defParamCharset: 'utf8',
      });
    } catch {
      failed = new AppError('VALIDATION_ERROR', 'the upload could not be read');
      closed = true;
      req.resume();
      return resolve();
    }
    const poke = () => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    bb.on('field', (name, value) => (fields[name] = value));
    bb.on('filesLimit', () => (tooMany = true));
    bb.on('file', (_name, stream, info) => {
      if (draining || !info.filename) return void stream.resume();
      queue.push({ filename: info.filename.replace(/^.*[\\/]/, ''), mimeType: info.mimeType, stream });
      poke();
    });
    bb.on('close', () => ((closed = true), poke(), resolve()));
    bb.on(
      'error',
      (err) => ((failed = err instanceof Error ? err : new Error(String(err))), (closed = true), poke(), resolve()),
    );
    req.pipe(bb);
  });
  const next = async (): Promise<UploadedFile | undefined> => {
    while (!queue.length && !closed) await new Promise<void>((r) => (wake = r));
    return queue.shift();
  };
  const settle = async () => {
    draining = true;
    for (const f of queue.splice(0)) f.stream.resume();
    await closedP;
  };

  const first = await next();
  if (first) queue.unshift(first);
  const up: UploadCall = {
    ...call,
    field: (name) => fields[name] ?? '',
    async *files() {
      for (let f = await next(); f; f = await next()) {
        await hooks.charge();
        yield f;
      }
      if (failed) throw failed;
      if (tooMany)
        throw new AppError('VALIDATION_ERROR', `at most ${limits.files} files at once; the rest were not uploaded`);
    },
  };
  const refused = hooks.refusal(up);
  if (refused) {
    await settle();
    return hooks.render(refused);
  }
  await hooks.run(up, settle);
  await settle();
}
