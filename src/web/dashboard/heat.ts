// The insights heat map's colour for a share of mentions: the negative share in five steps, spread
// over 0–50 % where hotels' topics actually sit (a scale that saturated at 40 % painted most trouble
// alike), and no colour at all under MIN_MENTIONS, the engine's own bar for judging a topic: one
// unhappy mention is 100 % negative and would otherwise weigh like eighty.
import { MIN_MENTIONS } from '../../modules/insights/recommendations.ts';

/** A heat map cell's or trend's counts of mentions. */
export interface MentionShare {
  negative: number;
  total: number;
}

const STEPS: ReadonlyArray<readonly [number, string]> = [[0.5, 'heat-4'], [0.35, 'heat-3'], [0.2, 'heat-2'], [0.1, 'heat-1']];

/** The CSS class of a cell: heat-none (no mentions), heat-few (too few to judge), heat-0 … heat-4. */
export function heatClass(share: MentionShare | null | undefined): string {
  if (!share || share.total === 0) return 'heat-none';
  if (share.total < MIN_MENTIONS) return 'heat-few';
  const negative = share.negative / share.total;
  return STEPS.find(([least]) => negative >= least)?.[1] ?? 'heat-0';
}
