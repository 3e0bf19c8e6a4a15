// The `from`/`to` query parameters every list shares: instants normalised to UTC, `from`
// inclusive, `to` exclusive, and a 400 naming them when the range is empty.
import { invalid } from '../lib/errors.ts';
import { toIso } from '../lib/time.ts';

export function timeRange(q: { from?: string; to?: string }): [from: string | undefined, to: string | undefined] {
  const from = q.from === undefined ? undefined : toIso(q.from);
  const to = q.to === undefined ? undefined : toIso(q.to);
  if (from !== undefined && to !== undefined && from >= to) throw invalid('querystring.from must be before to (from is inclusive, to exclusive)');
  return [from, to];
}
