import http from 'node:http';

/**
 * The API is called through node:http with a keep-alive agent, as the AWS SDK calls S3, so both sides pay the same
 * client costs.
 */
export const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
export function request(
  url: string,
  opts: { method: string; headers: Record<string, string>; body?: Buffer },
): Promise<{ status: number; bytes: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: opts.method,
        headers: { ...opts.headers, ...(opts.body ? { 'content-length': String(opts.body.length) } : {}) },
        agent,
      },
      (res) => {
        let bytes = 0;
        // Only a JSON body (a PUT's record, an error) is decoded; downloads are just counted, as the S3 side's are.
        const json = (res.headers['content-type'] ?? '').includes('json');
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => {
          bytes += c.length;
          if (json) chunks.push(c);
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, bytes, text: json ? Buffer.concat(chunks).toString('utf8') : '' }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

export async function drain(body: unknown): Promise<number> {
  let n = 0;
  for await (const c of body as AsyncIterable<Uint8Array>) n += c.length;
  return n;
}
