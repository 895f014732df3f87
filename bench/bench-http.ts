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

/** One JSON call to the API with a bearer key: its status and decoded body. */
export async function callJson(
  baseUrl: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** callJson that throws unless the API answered 200 or 201. */
export async function okJson(baseUrl: string, key: string, method: string, path: string, body?: unknown) {
  const r = await callJson(baseUrl, key, method, path, body);
  if (r.status !== 200 && r.status !== 201)
    throw new Error(`${method} ${path} answered ${r.status}: ${JSON.stringify(r.json).slice(0, 300)}`);
  return r.json;
}

/** fn's result and how long it took, in milliseconds. */
export const timed = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
  const t = performance.now();
  const r = await fn();
  return [r, performance.now() - t];
};
