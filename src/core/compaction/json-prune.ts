import { cutIndex } from '../utf16-cut';

/**
 * Seed 003 "UI data compression", applied to any large JSON tool output: the seed prunes
 * accessibility trees (elementsJson) and DOM dumps (webElements), but the same shape —
 * a long list of nodes, each with nested children and chatty fields — is what makes any
 * JSON output (API listings, search results, trees) expensive. Pure functions.
 *
 * Depth counts tree levels, not JSON nesting, as in the seed's example where `position`
 * (an object inside an element) survives while `children` is cut: the items of the first
 * array met from the root are level 0 (cut to `max_nodes`), the items of an array inside
 * a level-k item are level k+1 (cut to `max_children`), and an array whose items would lie
 * deeper than `max_depth` is replaced by `"[truncated]"`. Objects nested in objects add no
 * level; a hard limit on plain nesting still protects against pathological input.
 */

export interface JsonPruneLimits {
  /** Items kept of a top-level array (seed 003 MAX_UI_NODES). */
  max_nodes: number;
  /** Deepest tree level kept; 0 keeps only the top-level items (seed 003 MAX_UI_DEPTH). */
  max_depth: number;
  /** Items kept of an array below the top level (seed 003 MAX_UI_CHILDREN). */
  max_children: number;
  /** Longer strings are cut and end with `...[truncated]` (seed 003 MAX_TEXT_CHARS). */
  max_text_chars: number;
  /** Keys dropped wherever they appear (seed 003: description, help). */
  noisy_fields: readonly string[];
}

export const DEFAULT_JSON_PRUNE_LIMITS: JsonPruneLimits = {
  max_nodes: 200,
  max_depth: 2,
  max_children: 20,
  max_text_chars: 1000,
  noisy_fields: ['description', 'help'],
};

export const TRUNCATED = '[truncated]';
export const TEXT_TRUNCATED_SUFFIX = '...[truncated]';

/** Object-in-object nesting beyond this is cut whatever the tree level (stack safety). */
const MAX_PLAIN_NESTING = 64;

interface Walk {
  limits: JsonPruneLimits;
  noisy: ReadonlySet<string>;
  pruned: boolean;
}

export function pruneJson(
  value: unknown,
  limits: JsonPruneLimits = DEFAULT_JSON_PRUNE_LIMITS,
): { value: unknown; pruned: boolean } {
  const walk: Walk = { limits, noisy: new Set(limits.noisy_fields), pruned: false };
  // level -1: no array met yet, so the first array's items become level 0
  const out = prune(value, -1, 0, walk);
  return { value: out, pruned: walk.pruned };
}

function prune(value: unknown, level: number, nesting: number, walk: Walk): unknown {
  if (typeof value === 'string') return pruneString(value, walk);
  if (value === null || typeof value !== 'object') return value;
  if (nesting >= MAX_PLAIN_NESTING) {
    walk.pruned = true;
    return TRUNCATED;
  }
  if (Array.isArray(value)) {
    const itemLevel = level + 1;
    if (itemLevel > walk.limits.max_depth) {
      walk.pruned = true;
      return TRUNCATED;
    }
    const max = itemLevel === 0 ? walk.limits.max_nodes : walk.limits.max_children;
    const kept = value.length > max ? value.slice(0, Math.max(0, max)) : value;
    if (kept.length < value.length) walk.pruned = true;
    return kept.map((item) => prune(item, itemLevel, nesting + 1, walk));
  }
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (walk.noisy.has(key)) {
      walk.pruned = true;
      continue;
    }
    out[key] = prune(child, level, nesting + 1, walk);
  }
  return out;
}

function pruneString(text: string, walk: Walk): string {
  const max = walk.limits.max_text_chars;
  if (text.length <= max) return text;
  walk.pruned = true;
  return `${text.slice(0, Math.max(0, cutIndex(text, max)))}${TEXT_TRUNCATED_SUFFIX}`;
}

/**
 * The pruned text of a JSON document, or undefined when `text` is not a JSON object or
 * array or when pruning changes nothing. A document written on several lines is written
 * back indented (2 spaces), a one-line document stays on one line, so the model sees the
 * same style and the estimate does not grow by indentation that was not there.
 */
export function pruneJsonText(
  text: string,
  limits: JsonPruneLimits = DEFAULT_JSON_PRUNE_LIMITS,
): string | undefined {
  const body = text.trim();
  const first = body[0];
  if (first !== '{' && first !== '[') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const { value, pruned } = pruneJson(parsed, limits);
  if (!pruned) return undefined;
  return body.includes('\n') ? JSON.stringify(value, null, 2) : JSON.stringify(value);
}
