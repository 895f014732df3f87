import { readdirSync, readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { extractText, getDocumentProxy } from 'unpdf';
import type { DriveClient } from '../artifacts/client.js';

/** A small solid-colour PNG (no image library needed). */
export function png(width = 20, height = 10): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const raw = Buffer.concat(
    Array.from({ length: height }, () => Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0x80)])),
  );
  return Buffer.concat([
    Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export const MAIN_TEX = String.raw`\documentclass{article}
\usepackage{graphicx}
\begin{document}
Hello Quokka world.
\input{sec/intro}
\includegraphics[width=2cm]{fig.png}
\end{document}
`;

/** A folder with files; returns its fld_id. */
export async function makeProject(
  d: DriveClient,
  folder: string,
  files: Record<string, string | Buffer>,
): Promise<string> {
  const f = await d.call('POST', `/v0/folders/${folder}`, { json: {} });
  if (f.status !== 201 && f.status !== 200) throw new Error(`folder create: ${f.status} ${JSON.stringify(f.json)}`);
  for (const [name, body] of Object.entries(files)) {
    const r = await d.put(`${folder}/${name}`, body);
    if (r.status !== 200) throw new Error(`put ${name}: ${r.status}`);
  }
  return f.json.fld_id as string;
}

export async function pdfText(bytes: Uint8Array): Promise<string> {
  const { text } = await extractText(await getDocumentProxy(new Uint8Array(bytes)), { mergePages: true });
  return text;
}

export async function waitFor<T>(
  fn: () => Promise<T>,
  ok: (v: T) => boolean,
  timeoutMs = 60_000,
  stepMs = 200,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > until) throw new Error(`timed out waiting; last value ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

export const TERMINAL = ['succeeded', 'failed', 'cancelled', 'timed_out'];

/** Processes (not zombies) whose process group is `pgid`, from /proc. */
export function liveGroupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
