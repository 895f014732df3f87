import { PDFDocument, StandardFonts } from 'pdf-lib';
import { Tiktoken } from 'js-tiktoken';
import { describe, expect, it, vi } from 'vitest';
import { classify, extract, parseTimedText, previewOf, PREVIEW_BYTES } from '../../src/lib/extract.js';
import {
  CHUNK_TOKENS,
  countTokens,
  MAX_TOKENIZER_INPUT,
  OVERLAP_TOKENS,
  passagesOf,
  splitWithOffsets,
} from '../../src/search/split.js';

/** A long text of numbered sentences, so every passage is distinguishable. */
function longText(sentences: number): string {
  const out: string[] = [];
  for (let i = 0; i < sentences; i++) {
    out.push(`Sentence number ${i} talks about topic ${i % 7} and the quarterly plan for region ${i % 13}.`);
    if (i % 9 === 8) out.push('\n\n');
  }
  return out.join(' ');
}

async function multiPagePdf(pages: string[][]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = doc.addPage([612, 792]);
    lines.forEach((line, i) => page.drawText(line, { x: 40, y: 750 - i * 14, size: 10, font }));
  }
  return Buffer.from(await doc.save());
}

describe('classification', () => {
  it('reads text, code, pdf, timed text and media types', () => {
    expect(classify('text/markdown', 'a.md')).toBe('text');
    expect(classify('application/json; charset=utf-8', 'a.json')).toBe('text');
    expect(classify('text/plain', 'src/app.py')).toBe('code');
    expect(classify('application/octet-stream', 'src/app.ts')).toBe('code');
    expect(classify('application/javascript', 'x')).toBe('code');
    expect(classify('application/pdf', 'a.pdf')).toBe('pdf');
    expect(classify('text/vtt', 'talk.vtt')).toBe('timed');
    expect(classify('application/octet-stream', 'talk.srt')).toBe('timed');
    expect(classify('image/png', 'a.png')).toBe('image');
    expect(classify('video/mp4', 'a.mp4')).toBe('video');
    expect(classify('application/zip', 'a.zip')).toBe('binary');
  });

  it('gives no text for media, binaries and invalid UTF-8', async () => {
    expect(await extract('image/gif', 'a.gif', Buffer.from([0x47, 0x49]))).toEqual({ kind: 'none', modality: 'image' });
    // An image OCR reads but cannot decode says why (its extraction state is `failed: …`).
    expect(await extract('image/png', 'a.png', Buffer.from([0x89, 0x50]))).toMatchObject({
      kind: 'none',
      modality: 'image',
      reason: expect.stringContaining('unreadable'),
    });
    expect(await extract('text/plain', 'a.txt', Buffer.from([0xff, 0xfe, 0x41]))).toEqual({
      kind: 'none',
      modality: null,
    });
    expect(await extract('text/plain', 'a.txt', Buffer.from('a\u0000b'))).toEqual({ kind: 'none', modality: null });
  });
});

describe('passage splitting', () => {
  it('gives exact char spans: slicing the original text gives each passage', async () => {
    const text = longText(600);
    const extracted = await extract('text/plain', 'notes.txt', Buffer.from(text));
    const passages = await passagesOf(extracted);
    expect(passages.length).toBeGreaterThan(3);
    passages.forEach((p, i) => {
      expect(p.ord).toBe(i);
      expect(p.modality).toBe('text');
      expect(text.slice(p.charStart!, p.charEnd!)).toBe(p.text);
      expect(p.pageStart).toBeUndefined();
    });
    // The passages cover the text from start to end.
    expect(passages[0]!.charStart).toBeLessThan(5);
    expect(passages.at(-1)!.charEnd).toBeGreaterThan(text.length - 5);
  });

  it('overlaps consecutive passages by about 400 tokens', async () => {
    const text = longText(600);
    const spans = await splitWithOffsets(text);
    for (let i = 1; i < spans.length - 1; i++) {
      const overlap = text.slice(spans[i]!.start, spans[i - 1]!.end);
      expect(spans[i]!.start).toBeLessThan(spans[i - 1]!.end);
      const tokens = countTokens(overlap);
      expect(tokens).toBeGreaterThan(OVERLAP_TOKENS * 0.6);
      expect(tokens).toBeLessThanOrEqual(OVERLAP_TOKENS + 40);
    }
  });

  it('fills chunks to between 3/4 and all of 1,200 tokens, also without paragraphs, lines or spaces', async () => {
    const cases = [longText(600), longText(600).replace(/\s+/g, ' '), 'x9Ω'.repeat(6000)];
    for (const text of cases) {
      const spans = await splitWithOffsets(text);
      expect(spans.length).toBeGreaterThan(2);
      spans.forEach((s, i) => {
        const tokens = countTokens(text.slice(s.start, s.end));
        // A chunk's count is the sum of its pieces' (the tokenizer never merges across them), give or take the trim.
        expect(tokens).toBeLessThanOrEqual(CHUNK_TOKENS + 2);
        if (i < spans.length - 1) expect(tokens).toBeGreaterThanOrEqual(CHUNK_TOKENS * 0.75 - 2);
        if (i > 0) expect(s.start).toBeGreaterThan(spans[i - 1]!.start);
      });
      expect(spans.at(-1)!.end).toBe(text.trimEnd().length);
    }
  });

  it('hands the tokenizer bounded slices of a file that is one long word, and keeps its spans exact', async () => {
    // The tokenizer's BPE is quadratic in a pre-token's length: 20,000 letters in one word held the worker for 31 s.
    const encode = vi.spyOn(Tiktoken.prototype, 'encode');
    try {
      for (const text of ['a'.repeat(65_000), '😀'.repeat(30_000), 'xyzzy'.repeat(8_000)]) {
        encode.mockClear();
        const spans = await splitWithOffsets(text);
        const longest = Math.max(...encode.mock.calls.map(([input]) => input.length));
        expect(longest).toBeLessThanOrEqual(MAX_TOKENIZER_INPUT);
        expect(spans.length).toBeGreaterThan(10);
        expect(spans[0]!.start).toBe(0);
        expect(spans.at(-1)!.end).toBe(text.length);
        spans.forEach((s, i) => {
          if (i > 0) expect(s.start).toBeGreaterThan(spans[i - 1]!.start);
          // Never half of a surrogate pair at either end.
          expect(text.slice(s.start, s.end)).not.toMatch(/^[\udc00-\udfff]|[\ud800-\udbff]$/);
        });
      }
    } finally {
      encode.mockRestore();
    }
  });

  it('gives the same spans when several texts are split at once (splits interleave at each yield)', async () => {
    const texts = [longText(9000), longText(9000).replace(/\n\n/g, '\n'), longText(9000).toUpperCase()];
    const alone: Awaited<ReturnType<typeof splitWithOffsets>>[] = [];
    for (const text of texts) alone.push(await splitWithOffsets(text));
    expect(await Promise.all(texts.map((text) => splitWithOffsets(text)))).toEqual(alone);
  });

  it('keeps spans exact for code with repeated lines and non-ASCII text', async () => {
    const line = 'const émoji = "🙂"; // same line repeated\n';
    const text = line.repeat(900) + 'export const last = 1;\n';
    const passages = await passagesOf(await extract('text/plain', 'src/x.ts', Buffer.from(text)));
    expect(passages.every((p) => p.modality === 'code')).toBe(true);
    for (const p of passages) expect(text.slice(p.charStart!, p.charEnd!)).toBe(p.text);
    expect(passages.at(-1)!.text).toContain('export const last');
  });

  it('indexes an unreadable PDF by path and metadata only, without failing', async () => {
    expect(await extract('application/pdf', 'broken.pdf', Buffer.from('%PDF-1.4 not really a pdf'))).toMatchObject({
      kind: 'none',
      modality: 'pdf',
      reason: expect.stringContaining('unreadable'),
    });
    expect(await passagesOf({ kind: 'none', modality: 'pdf' })).toEqual([]);
  });

  it('gives PDF page spans on a generated multi-page PDF', async () => {
    const filler = (tag: string) =>
      Array.from({ length: 45 }, (_, i) => `${tag} line ${i} with words about the ${tag} chapter of the report.`);
    const pdf = await multiPagePdf([
      filler('alpha'),
      filler('bravo'),
      filler('charlie'),
      filler('delta'),
      filler('echo'),
    ]);
    const extracted = await extract('application/pdf', 'report.pdf', pdf);
    expect(extracted.kind).toBe('pdf');
    if (extracted.kind !== 'pdf') return;
    expect(extracted.pages).toHaveLength(5);
    expect(extracted.pages[2]).toContain('charlie line 0');
    const passages = await passagesOf(extracted);
    expect(passages.length).toBeGreaterThan(1);
    const tags = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];
    for (const p of passages) {
      expect(p.modality).toBe('pdf');
      expect(p.charStart).toBeUndefined();
      expect(p.pageStart).toBeGreaterThanOrEqual(1);
      expect(p.pageEnd).toBeGreaterThanOrEqual(p.pageStart!);
      // Every page named by the span contributes text, and no other page does.
      const present = tags.map((t, i) => (p.text.includes(`${t} line`) ? i + 1 : 0)).filter(Boolean);
      expect(Math.min(...present)).toBe(p.pageStart);
      expect(Math.max(...present)).toBe(p.pageEnd);
    }
    expect(passages[0]!.pageStart).toBe(1);
    expect(passages.at(-1)!.pageEnd).toBe(5);
    expect(previewOf(extracted)).toBe('');
  });

  it('gives time spans for WebVTT and SRT cues', async () => {
    const cues = Array.from({ length: 400 }, (_, i) => {
      const s = i * 4;
      const ts = (sec: number) =>
        `00:${String(Math.floor(sec / 60)).padStart(2, '0')}:${String(sec % 60).padStart(2, '0')}.500`;
      return `cue-${i}\n${ts(s)} --> ${ts(s + 3)}\n<v Speaker>Cue ${i} says marker${i} about the roadmap and the budget.</v>`;
    });
    const vtt = `WEBVTT\n\nNOTE generated\n\n${cues.join('\n\n')}\n`;
    const extracted = await extract('text/vtt', 'talk.vtt', Buffer.from(vtt));
    expect(extracted.kind).toBe('timed');
    if (extracted.kind !== 'timed') return;
    expect(extracted.cues).toHaveLength(400);
    expect(extracted.cues[1]).toEqual({
      startMs: 4500,
      endMs: 7500,
      text: 'Cue 1 says marker1 about the roadmap and the budget.',
    });
    const passages = await passagesOf(extracted);
    expect(passages.length).toBeGreaterThan(1);
    for (const p of passages) {
      expect(p.modality).toBe('video');
      expect(p.charStart).toBeUndefined();
      const first = Number(/marker(\d+)/.exec(p.text)![1]);
      const last = Number([...p.text.matchAll(/marker(\d+)/g)].at(-1)![1]);
      expect(p.timeStartMs).toBe(first * 4000 + 500);
      expect(p.timeEndMs).toBe(last * 4000 + 3500);
    }
    const srt = parseTimedText(
      '1\r\n00:00:01,000 --> 00:00:02,250\r\nHello there\r\n\r\n2\r\n00:01:00,000 --> 00:01:02,000\r\nSecond cue\r\n',
    );
    expect(srt).toEqual([
      { startMs: 1000, endMs: 2250, text: 'Hello there' },
      { startMs: 60000, endMs: 62000, text: 'Second cue' },
    ]);
  });

  it('limits the search preview to the first 16 KB', async () => {
    const text = 'ä'.repeat(20_000);
    const preview = previewOf({ kind: 'text', modality: 'text', text });
    expect(Buffer.byteLength(preview)).toBeLessThanOrEqual(PREVIEW_BYTES);
    expect(Buffer.byteLength(preview)).toBeGreaterThan(PREVIEW_BYTES - 4);
    expect(text.startsWith(preview)).toBe(true);
  });
});
