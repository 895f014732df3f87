import { spawn } from 'node:child_process';

/**
 * A boxed child process (docs/decisions.md, "Bounded work on every door"): a parser that may inflate, loop or hang runs
 * with a data-segment limit (`ulimit -d`, which bounds the heap and inflated buffers alike and, unlike `ulimit -v`,
 * lets Node start), a wall-clock limit and a cap on what it writes back; past any of them this one file fails with the
 * reason and the worker that indexes every drive lives on. The input goes on stdin, the answer comes on stdout.
 */
export interface BoxLimits {
  memoryMb: number;
  timeMs: number;
  maxTextBytes: number;
}

/** Why a box gave up; `budget` when a limit (memory, time, output, an archive's own limits) refused the file. */
export class BoxFailed extends Error {
  constructor(
    message: string,
    readonly budget: boolean,
  ) {
    super(message);
  }
}

export function runBoxed(nodeArgs: string[], input: Buffer, limits: BoxLimits): Promise<string> {
  return new Promise((resolve, reject) => {
    const script = `ulimit -d ${limits.memoryMb * 1024} || exit 97; exec "$0" "$@"`;
    const child = spawn('bash', ['-c', script, process.execPath, ...nodeArgs], {
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
    child.stdin.end(input);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (!why && code === 0) return resolve(Buffer.concat(out).toString('utf8'));
      const refused = /^BUDGET: (.*)$/m.exec(stderr)?.[1];
      const unreadable = /^UNREADABLE: (.*)$/m.exec(stderr)?.[1];
      // V8 ends an allocation past the data segment with SIGABRT or SIGTRAP, not always after a message.
      const outOfMemory =
        signal === 'SIGABRT' ||
        signal === 'SIGTRAP' ||
        /out of memory|Cannot allocate|allocation failed|Array buffer allocation/i.test(stderr);
      if (why) reject(new BoxFailed(why, true));
      else if (refused) reject(new BoxFailed(refused, true));
      else if (outOfMemory) reject(new BoxFailed(`decoding it needs more than ${limits.memoryMb} MB`, true));
      else reject(new BoxFailed(`the file is unreadable (${unreadable ?? `exit ${code ?? signal}`})`, false));
    });
  });
}
