import { ConfigError } from './config-error';

/** config.yaml is a few kilobytes; anything past this is not a config file (read whole). */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * What a section may expand to once YAML aliases are followed, in bytes as JSON roughly
 * (each value counts 8 plus its text). js-yaml shares an aliased node instead of copying
 * it, but everything after parsing (`${VAR}` substitution, zod, error messages) walks the
 * tree as if it were copied: nine levels of nine aliases ("billion laughs") are 387 million
 * values from a 1 KiB file.
 */
export const MAX_EXPANDED_BYTES = 8 * MAX_CONFIG_BYTES;

const VALUE_COST = 8;

/**
 * Refuses a section whose values refer to themselves (an alias inside its own anchor) or
 * expand beyond MAX_EXPANDED_BYTES, naming the deepest key that does. Linear in the size of
 * the file: each shared node is measured once.
 */
export function checkAliasExpansion(section: string, value: unknown, file: string): void {
  const sizes = new Map<object, number>();
  const open = new Set<object>();

  const measure = (node: unknown, key: string): number => {
    if (typeof node === 'string') return VALUE_COST + node.length;
    if (node === null || typeof node !== 'object') return VALUE_COST;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    if (open.has(node)) {
      throw new ConfigError(
        { file, key, value: null, allowed: 'a value that does not contain itself' },
        `${file}: ${key} contains itself (a YAML alias inside its own anchor)`,
      );
    }
    open.add(node);
    let total = VALUE_COST;
    for (const [k, child] of entries(node)) {
      // Saturates: past the limit the exact figure no longer matters.
      total = Math.min(total + measure(child, childKey(key, k, node)), MAX_EXPANDED_BYTES + 1);
    }
    open.delete(node);
    sizes.set(node, total);
    return total;
  };

  if (measure(value, section) <= MAX_EXPANDED_BYTES) return;
  // Name the deepest key that is too big on its own.
  let key = section;
  let node: unknown = value;
  for (;;) {
    if (node === null || typeof node !== 'object') break;
    const big = entries(node).find(
      ([, child]) =>
        typeof child === 'object' && (sizes.get(child as object) ?? 0) > MAX_EXPANDED_BYTES,
    );
    if (!big) break;
    key = childKey(key, big[0], node);
    node = big[1];
  }
  throw new ConfigError(
    {
      file,
      key,
      value: null,
      allowed: `at most ${MAX_EXPANDED_BYTES} bytes once YAML aliases are expanded`,
    },
    `${file}: ${key} expands to more than ${MAX_EXPANDED_BYTES / MAX_CONFIG_BYTES} MiB once its YAML aliases are followed (an alias bomb?); write the values out instead`,
  );
}

function entries(node: object): [string, unknown][] {
  return Array.isArray(node)
    ? node.map((child, i): [string, unknown] => [String(i), child])
    : Object.entries(node);
}

function childKey(key: string, k: string, parent: object): string {
  return Array.isArray(parent) ? `${key}[${k}]` : `${key}.${k}`;
}
