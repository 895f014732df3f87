import { it } from 'vitest';
import { useTestApi, type DriveClient } from '../artifacts/client.js';
let d: DriveClient;
let api: any;
useTestApi({}, (a, c) => ((d = c), (api = a)));
it('counts', async () => {
  const seen: string[] = [];
  const client = await api.ctx.pool.pool.connect(); const proto = Object.getPrototypeOf(client); client.release();
  const orig = proto.query;
  let on = false;
  proto.query = function (this: any, ...args: any[]) {
    if (on) { const a = args[0]; seen.push(typeof a === 'string' ? a : a?.text ?? String(a)); }
    return (orig as any).apply(this, args);
  };
  await d.put('warm/a.txt', 'x');
  await d.get('/v0/drives/me');
  for (const [name, fn] of [
    ['create', () => d.put('c/new.txt', 'hello')],
    ['overwrite', () => d.put('c/new.txt', 'hello2')],
    ['noop drives/me', () => d.get('/v0/drives/me')],
  ] as const) {
    seen.length = 0; on = true; await fn(); on = false;
    console.log(`== ${name}: ${seen.length}\n` + seen.map((s) => '  ' + s.replace(/\s+/g, ' ').slice(0, 150)).join('\n'));
  }
});
