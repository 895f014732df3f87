import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Documents made by the real tools (python-docx, python-pptx, openpyxl, odfpy, ebooklib) in a virtualenv under .tools/,
 * installed from PyPI once, the way test/mcp/python-sdk.test.ts installs the MCP SDK. HTML and RTF are written here.
 */
const venv = path.resolve('.tools/venv-docs');
const python = path.join(venv, 'bin/python');
const PACKAGES = ['python-docx', 'python-pptx', 'openpyxl', 'odfpy', 'ebooklib', 'Pillow'];

function ensureVenv() {
  if (existsSync(python)) {
    try {
      execFileSync(python, ['-c', 'import docx, pptx, openpyxl, odf, ebooklib, PIL']);
      return;
    } catch {
      // incomplete: installed below
    }
  }
  execFileSync('python3', ['-m', 'venv', venv], { stdio: 'inherit' });
  execFileSync(path.join(venv, 'bin/pip'), ['install', '-q', ...PACKAGES], { stdio: 'inherit' });
}

export interface MadeDocument {
  path: string;
  contentType: string;
  bytes: Buffer;
  /** A word only inside this document, and the anchor of the unit it is in. */
  marker: string;
  anchor: Record<string, unknown>;
}

const OOXML = 'application/vnd.openxmlformats-officedocument.';
const ODF = 'application/vnd.oasis.opendocument.';

export const HTML_PAGE = `<!doctype html><html><head><title>Page</title><style>.htmlstyleword{}</style>
<script>const htmlscriptword = 1;</script></head><body><nav>Home</nav><h1>Guide</h1><p>Intro.</p>
<h2>Setup</h2><p>Run the <b>htmlmarkerword</b> step.</p><ul><li>one</li><li>two</li></ul></body></html>`;

export const RTF_DOC = String.raw`{\rtf1\ansi\deff0{\fonttbl{\f0 Times;}}{\colortbl;\red0\green0\blue0;}
\f0\pard Memo about the rtfmarkerword plan, caf\'e9 and \u8364? prices.\par Second paragraph.\par}`;

/** Each kind with its marker word; null when python3 with venv/pip is missing (the tests then skip). */
export function makeDocuments():
  { documents: MadeDocument[]; scans: Record<string, Buffer> } | { unavailable: string } {
  try {
    ensureVenv();
  } catch (err) {
    return {
      unavailable: `python3 -m venv and pip could not install ${PACKAGES.join(', ')}: ${(err as Error).message}`,
    };
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'docs-'));
  execFileSync(python, [path.resolve('test/search/fixtures/make_documents.py'), dir]);
  const file = (name: string) => readFileSync(path.join(dir, name));
  const documents: MadeDocument[] = [
    {
      path: 'docs/report.docx',
      contentType: `${OOXML}wordprocessingml.document`,
      bytes: file('report.docx'),
      marker: 'docxmarkerword',
      anchor: { heading: 'Quarterly report > Results' },
    },
    {
      path: 'docs/deck.pptx',
      contentType: `${OOXML}presentationml.presentation`,
      bytes: file('deck.pptx'),
      marker: 'pptxnotesword',
      anchor: { slide: 2 },
    },
    {
      path: 'docs/book.xlsx',
      contentType: `${OOXML}spreadsheetml.sheet`,
      bytes: file('book.xlsx'),
      marker: 'xlsxmarkerword',
      anchor: { sheet: 'Budget', range: 'A1:B3' },
    },
    {
      path: 'docs/minutes.odt',
      contentType: `${ODF}text`,
      bytes: file('minutes.odt'),
      marker: 'odtmarkerword',
      anchor: { heading: 'Minutes > Decisions' },
    },
    {
      path: 'docs/slides.odp',
      contentType: `${ODF}presentation`,
      bytes: file('slides.odp'),
      marker: 'odpmarkerword',
      anchor: { slide: 2 },
    },
    {
      path: 'docs/stock.ods',
      contentType: `${ODF}spreadsheet`,
      bytes: file('stock.ods'),
      marker: 'odsmarkerword',
      anchor: { sheet: 'Stock', range: 'A1:B2' },
    },
    {
      path: 'docs/story.epub',
      contentType: 'application/epub+zip',
      bytes: file('story.epub'),
      marker: 'epubmarkerword',
      anchor: { chapter: 2, title: 'Chapter 2' },
    },
    {
      path: 'docs/page.html',
      contentType: 'text/html',
      bytes: Buffer.from(HTML_PAGE),
      marker: 'htmlmarkerword',
      anchor: { heading: 'Guide > Setup' },
    },
    {
      path: 'docs/scan.png',
      contentType: 'image/png',
      bytes: file('scan.png'),
      marker: 'ocrmarkerword',
      anchor: { page: 1 },
    },
    {
      path: 'docs/scanned.pdf',
      contentType: 'application/pdf',
      bytes: file('scanned.pdf'),
      marker: 'scanmarkerword',
      anchor: { page: 2 },
    },
    {
      // A generic type: the extension decides.
      path: 'docs/memo.rtf',
      contentType: 'application/octet-stream',
      bytes: Buffer.from(RTF_DOC),
      marker: 'rtfmarkerword',
      anchor: { heading: '' },
    },
  ];
  return { documents, scans: { pages60: file('scan-60.pdf'), pages10000: file('scan-10000.pdf') } };
}
