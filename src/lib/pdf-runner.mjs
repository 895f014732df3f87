// Extracts a PDF's text, one string per page, in its own process (spawned by src/lib/pdf-box.ts
// under a data-segment limit): the PDF's bytes on stdin, the pages as JSON on stdout.
import { extractText, getDocumentProxy } from 'unpdf';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const pdf = await getDocumentProxy(new Uint8Array(Buffer.concat(chunks)));
const { text } = await extractText(pdf, { mergePages: false });
process.stdout.write(JSON.stringify(text));
