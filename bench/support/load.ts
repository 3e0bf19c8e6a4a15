// Bench load loop: a fixed number of keep-alive connections (an undici Pool) each sending one GET
// after another for a fixed time; requests/s, latency quantiles, and a check of every status.
// Scenarios are run in rounds (A B C, B C A, C A B, …) so drift on a shared machine hits them alike.
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

export interface Scenario {
  name: string;
  path: string;
  headers?: Record<string, string>;
  /** Expected status; any other answer is counted as an error and the first one is kept. */
  status?: number;
}

export interface LoadFigures {
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  errors: number;
  firstError: string | null;
  /** Server CPU time per request in µs (when LoadOptions.cpuMicros is given), NaN otherwise. */
  cpuPerRequest: number;
  /** The highest requests/s of a single round: interference from other jobs only ever lowers it. */
  bestRps: number;
}

export interface LoadOptions {
  connections: number;
  /** Measured seconds per scenario and round. */
  seconds: number;
  /** Warm-up seconds before each measurement (not counted). */
  warmupSeconds: number;
  rounds: number;
  /** The server's cumulative CPU time in µs: sampled around each measurement (a figure less hurt by a busy machine). */
  cpuMicros?: () => Promise<number>;
  /** Called after each measured round of a scenario. */
  onRound?: (scenario: string, round: number, figures: LoadFigures) => void;
}

interface Sample {
  latencies: number[];
  elapsedMs: number;
  errors: number;
  firstError: string | null;
  cpuMicros: number;
}

/** Sends requests for `ms` milliseconds on every connection; returns latencies in ms. */
async function drive(pool: Pool, scenario: Scenario, connections: number, ms: number): Promise<Sample> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | null = null;
  const started = performance.now();
  const deadline = started + ms;
  const expected = scenario.status ?? 200;
  const worker = async () => {
    while (performance.now() < deadline) {
      const t = performance.now();
      try {
        const { statusCode, body } = await pool.request({ method: 'GET', path: scenario.path, headers: scenario.headers });
        let text = '';
        if (statusCode !== expected) text = await body.text();
        else for await (const _chunk of body) { /* read the whole answer, keep nothing */ }
        latencies.push(performance.now() - t);
        if (statusCode !== expected) {
          errors++;
          firstError ??= `${statusCode} ${text.slice(0, 200)}`;
        }
      } catch (error) {
        errors++;
        firstError ??= String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  return { latencies, elapsedMs: performance.now() - started, errors, firstError, cpuMicros: NaN };
}

function quantile(sorted: Float64Array, q: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function figuresOf(samples: Sample[]): LoadFigures {
  const all = Float64Array.from(samples.flatMap((s) => s.latencies)).sort();
  const seconds = samples.reduce((sum, s) => sum + s.elapsedMs, 0) / 1000;
  const errors = samples.reduce((sum, s) => sum + s.errors, 0);
  const cpu = samples.reduce((sum, s) => sum + s.cpuMicros, 0);
  return {
    requests: all.length, seconds, rps: all.length / seconds,
    p50: quantile(all, 0.5), p90: quantile(all, 0.9), p99: quantile(all, 0.99),
    errors, firstError: samples.find((s) => s.firstError)?.firstError ?? null,
    cpuPerRequest: cpu / all.length,
    bestRps: Math.max(...samples.map((s) => (s.latencies.length * 1000) / s.elapsedMs)),
  };
}

/** Runs every scenario against `origin` in rounds; returns the figures per scenario name. */
export async function runLoad(origin: string, scenarios: Scenario[], options: LoadOptions): Promise<Map<string, LoadFigures>> {
  const pool = new Pool(origin, { connections: options.connections, pipelining: 1 });
  const samples = new Map<string, Sample[]>(scenarios.map((s) => [s.name, []]));
  try {
    for (let round = 1; round <= options.rounds; round++) {
      // Each round starts one scenario later, so no scenario always follows the same one.
      const order = scenarios.map((_, i) => scenarios[(i + round - 1) % scenarios.length]!);
      for (const scenario of order) {
        if (options.warmupSeconds > 0) await drive(pool, scenario, options.connections, options.warmupSeconds * 1000);
        const cpuBefore = options.cpuMicros ? await options.cpuMicros() : NaN;
        const sample = await drive(pool, scenario, options.connections, options.seconds * 1000);
        if (options.cpuMicros) sample.cpuMicros = (await options.cpuMicros()) - cpuBefore;
        samples.get(scenario.name)!.push(sample);
        options.onRound?.(scenario.name, round, figuresOf([sample]));
      }
    }
  } finally {
    await pool.close();
  }
  return new Map([...samples].map(([name, s]) => [name, figuresOf(s)]));
}

/** One GET through a fresh connection, for checks before the load: status and parsed JSON. */
export async function getJson(origin: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const pool = new Pool(origin, { connections: 1 });
  try {
    const { statusCode, body } = await pool.request({ method: 'GET', path, headers });
    const text = await body.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch { /* not JSON: keep the text */ }
    return { status: statusCode, body: parsed };
  } finally {
    await pool.close();
  }
}
