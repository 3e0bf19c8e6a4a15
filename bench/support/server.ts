// Starts the app under test in a child process (so its memory and CPU are its own, and the load
// generator in this process does not share its event loop) and talks to it over IPC.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export interface ChildServerOptions {
  databaseUrl: string;
  /** PostgreSQL schema to work in (the bench's own). */
  schema?: string | null;
  /** Environment for loadConfig (DATABASE_URL is set from databaseUrl). */
  env: Record<string, string>;
  /** Absolute path or file URL of a module exporting registerBenchRoutes(app, ctx, params). */
  routesModule?: string;
  params?: unknown;
}

export type ParentMessage = { type: 'memory' } | { type: 'cpu' } | { type: 'stop' };
export type ChildMessage =
  | { type: 'listening'; url: string }
  | { type: 'memory'; rss: number; heapUsed: number; external: number }
  | { type: 'cpu'; micros: number };

export interface ChildServer {
  url: string;
  pid: number;
  memory(): Promise<{ rss: number; heapUsed: number; external: number }>;
  /** CPU time (user + system) the server process has used so far, in µs. */
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

const ENTRY = fileURLToPath(new URL('./server-child.ts', import.meta.url));

export async function startChildServer(options: ChildServerOptions): Promise<ChildServer> {
  const child: ChildProcess = fork(ENTRY, [], {
    // BENCH_SERVER_CPU_PROF=<dir>: the server writes a CPU profile there when it stops (bench/support/profile-summary.ts reads it).
    execArgv: ['--import', 'tsx', ...(process.env.BENCH_SERVER_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_SERVER_CPU_PROF}`] : [])],
    env: { ...process.env, REPUTE_BENCH_SERVER: JSON.stringify(options) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // One listener each for messages and exit; callers wait for the next message of a type.
  const waiting: { type: ChildMessage['type']; resolve: (m: ChildMessage) => void; reject: (e: Error) => void }[] = [];
  child.on('message', (message: ChildMessage) => {
    const i = waiting.findIndex((w) => w.type === message.type);
    if (i >= 0) waiting.splice(i, 1)[0]!.resolve(message);
  });
  child.once('exit', (code) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`bench server exited with ${code}`));
  });
  const next = <T extends ChildMessage['type']>(type: T): Promise<Extract<ChildMessage, { type: T }>> =>
    new Promise((resolve, reject) => {
      if (child.exitCode !== null) reject(new Error(`bench server exited with ${child.exitCode}`));
      else waiting.push({ type, resolve: resolve as (m: ChildMessage) => void, reject });
    });
  const { url } = await next('listening');
  return {
    url,
    pid: child.pid!,
    memory: async () => {
      const reply = next('memory');
      child.send({ type: 'memory' } satisfies ParentMessage);
      const { rss, heapUsed, external } = await reply;
      return { rss, heapUsed, external };
    },
    cpuMicros: async () => {
      const reply = next('cpu');
      child.send({ type: 'cpu' } satisfies ParentMessage);
      return (await reply).micros;
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.send({ type: 'stop' } satisfies ParentMessage);
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
