// Prints the top self-time frames of a V8 CPU profile (node --cpu-prof), the summary the issues ask
// for in closing notes: node --import tsx bench/support/profile-summary.ts FILE.cpuprofile [--top 10] [--match text]
// --match keeps the frames whose function or file contains the text (e.g. --match src/web);
// --inclusive ranks by time including callees (where a route's time goes) instead of self time.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '10' }, match: { type: 'string', default: '' }, inclusive: { type: 'boolean', default: false } } });
for (const file of positionals) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const keyOf = (id: number): string => {
    const frame = byId.get(id)!.callFrame;
    const where = frame.url.replace(/^.*\/(node_modules|src|bench)\//, '$1/').replace(/^node:/, '');
    return `${frame.functionName || '(anonymous)'} ${where}${where ? `:${frame.lineNumber + 1}` : ''}`;
  };
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    total += dt;
    if (!values.inclusive) {
      self.set(keyOf(id), (self.get(keyOf(id)) ?? 0) + dt);
      return;
    }
    // Each function on the sample's stack once (recursion counted once).
    const seen = new Set<string>();
    for (let node: number | undefined = id; node !== undefined; node = parentOf.get(node)) seen.add(keyOf(node));
    for (const key of seen) self.set(key, (self.get(key) ?? 0) + dt);
  });
  const idle = [...self].filter(([k]) => k.startsWith('(idle)')).reduce((s, [, v]) => s + v, 0);
  const busy = total - idle;
  console.log(`${file}: ${(busy / 1000).toFixed(0)} ms busy of ${(total / 1000).toFixed(0)} ms`);
  const rows = [...self].filter(([k]) => !k.startsWith('(idle)') && k.includes(values.match)).sort((a, b) => b[1] - a[1]).slice(0, Number(values.top));
  for (const [key, us] of rows) console.log(`  ${((100 * us) / busy).toFixed(1).padStart(5)} %  ${key}`);
}
