import type { CostFigure, CostUnknownReason } from './cost-types';

/** US dollars, with cents; sub-cent amounts keep two significant digits ($0.0042). */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0.00';
  if (usd < 0.01) return `$${usd.toPrecision(2)}`;
  return `$${usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

const REASONS: Record<CostUnknownReason, string> = {
  unknown_model: 'unknown model',
  no_model: 'no model',
  no_usage: 'no usage',
};

/** A cost for plain-text output: the amount, or `unknown (why)` — never $0 for unknown. */
export function formatCost(cost: CostFigure): string {
  return cost.usd === null ? `unknown (${REASONS[cost.unknown]})` : formatUsd(cost.usd);
}
