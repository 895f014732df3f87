import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * PDF text extraction in a box (docs/decisions.md, "Bounded work on every door"): pdf.js inflates
 * streams as it reads them, so a 150 KB PDF can decode to gigabytes. It runs in a child process
 * with a data-segment limit (`ulimit -d`, which bounds the heap and the inflated buffers alike and,
 * unlike `ulimit -v`, lets Node start), a wall-clock limit and a cap on the text it returns; past
 * any of them this one PDF fails with the reason and the worker that indexes every drive lives on.
 */
export interface PdfBoxLimits {
  memoryMb: number;
  timeMs: number;
  maxTextBytes: number;
}

export const PDF_BOX_DEFAULTS: PdfBoxLimits = { memoryMb: 768, timeMs: 30_000, maxTextBytes: 32 * 1024 * 1024 };

const RUNNER = fileURLToPath(new URL('./pdf-runner.mjs', import.meta.url));

export class PdfExtractionFailed extends Error {}

export function extractPdfPagesBoxed(bytes: Buffer, limits: PdfBoxLimits = PDF_BOX_DEFAULTS): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const script = `ulimit -d ${limits.memoryMb * 1024} || exit 97; exec "$0" "$1"`;
    const child = spawn('bash', ['-c', script, process.execPath, RUNNER], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '' },
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let why: string | undefined;
    const kill = (reason: string) => {
      why ??= reason;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => kill(`took longer than ${limits.timeMs} ms`), limits.timeMs);
    child.stdout.on('data', (d: Buffer) => {
      outBytes += d.length;
      if (outBytes > limits.maxTextBytes) kill(`its text is over ${limits.maxTextBytes} bytes`);
      else out.push(d);
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    child.stdin.on('error', () => undefined); // the child may die before reading everything
    child.stdin.end(bytes);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (!why && code === 0) {
        try {
          return resolve(JSON.parse(Buffer.concat(out).toString('utf8')) as string[]);
        } catch {
          why = 'the extractor wrote no readable text';
        }
      }
      // V8 ends an allocation past the data segment with SIGABRT or SIGTRAP, not always after a message.
      const outOfMemory =
        signal === 'SIGABRT' ||
        signal === 'SIGTRAP' ||
        /out of memory|Cannot allocate|allocation failed|Array buffer allocation/i.test(stderr);
      reject(
        new PdfExtractionFailed(
          why ??
            (outOfMemory
              ? `decoding it needs more than ${limits.memoryMb} MB`
              : `the PDF is unreadable (exit ${code ?? signal})`),
        ),
      );
    });
  });
}
