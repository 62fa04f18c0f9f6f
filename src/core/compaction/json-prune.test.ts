import { describe, expect, it } from 'vitest';
import {
  DEFAULT_JSON_PRUNE_LIMITS,
  TEXT_TRUNCATED_SUFFIX,
  TRUNCATED,
  pruneJson,
  pruneJsonText,
} from './json-prune';

interface UiNode {
  role: string;
  title: string;
  description?: string;
  help?: string;
  position?: { x: number; y: number };
  children?: UiNode[] | string;
}

/** Seed 003's example: 300 elements, each with description, help, position and 50 children. */
function seedExample(): { elements: UiNode[] } {
  return {
    elements: Array.from({ length: 300 }, (_, i) => ({
      role: 'AXButton',
      title: `Submit ${i}`,
      description: 'Click this button to submit the form',
      help: 'Press enter to activate',
      position: { x: 100, y: 200 + i },
      children: Array.from({ length: 50 }, (_, j) => ({
        role: 'AXStaticText',
        title: `child ${i}.${j}`,
        help: 'noise',
        children: [
          { role: 'AXGroup', title: 'grandchild', children: [{ role: 'AXImage', title: 'deep' }] },
        ],
      })),
    })),
  };
}

describe('pruneJson', () => {
  it('prunes the seed 003 example: 200 elements, 20 children, description and help gone', () => {
    const { value, pruned } = pruneJson(seedExample(), DEFAULT_JSON_PRUNE_LIMITS);
    expect(pruned).toBe(true);
    const { elements } = value as { elements: UiNode[] };
    expect(elements).toHaveLength(200);
    const first = elements[0]!;
    expect(first).toEqual({
      role: 'AXButton',
      title: 'Submit 0',
      position: { x: 100, y: 200 },
      children: expect.any(Array) as unknown,
    });
    expect(elements[199]!.title).toBe('Submit 199');
    for (const el of elements) {
      expect(el).not.toHaveProperty('description');
      expect(el).not.toHaveProperty('help');
      expect(el.children).toHaveLength(20);
    }
    const child = (first.children as UiNode[])[0]!;
    expect(child).not.toHaveProperty('help');
    expect(child.title).toBe('child 0.0');
    // level 0 elements, level 1 children, level 2 grandchildren; level 3 is cut
    const grandchild = (child.children as UiNode[])[0]!;
    expect(grandchild.title).toBe('grandchild');
    expect(grandchild.children).toBe(TRUNCATED);
  });

  it('does not touch the input', () => {
    const input = seedExample();
    pruneJson(input);
    expect(input.elements).toHaveLength(300);
    expect(input.elements[0]!.description).toBeDefined();
  });

  it('cuts long strings with ...[truncated]', () => {
    const { value, pruned } = pruneJson({ text: 'x'.repeat(1500), short: 'ok' });
    expect(pruned).toBe(true);
    const v = value as { text: string; short: string };
    expect(v.text).toBe(`${'x'.repeat(1000)}${TEXT_TRUNCATED_SUFFIX}`);
    expect(v.short).toBe('ok');
  });

  it('does not split a surrogate pair when cutting a string', () => {
    const text = `${'a'.repeat(999)}😀tail`;
    const { value } = pruneJson({ text });
    expect((value as { text: string }).text).toBe(`${'a'.repeat(999)}${TEXT_TRUNCATED_SUFFIX}`);
  });

  it('applies max_nodes to a top-level array and max_children below it', () => {
    const limits = { ...DEFAULT_JSON_PRUNE_LIMITS, max_nodes: 3, max_children: 2 };
    const { value } = pruneJson(
      Array.from({ length: 10 }, (_, i) => ({ id: i, tags: [1, 2, 3, 4] })),
      limits,
    );
    expect(value).toEqual([
      { id: 0, tags: [1, 2] },
      { id: 1, tags: [1, 2] },
      { id: 2, tags: [1, 2] },
    ]);
  });

  it('counts tree levels by arrays, so nested objects survive', () => {
    const doc = { data: { repo: { issues: { nodes: [{ author: { login: { name: 'a' } } }] } } } };
    expect(pruneJson(doc)).toEqual({ value: doc, pruned: false });
  });

  it('with max_depth 0 keeps only the top-level items', () => {
    const limits = { ...DEFAULT_JSON_PRUNE_LIMITS, max_depth: 0 };
    expect(pruneJson({ items: [{ id: 1, children: [{ id: 2 }] }] }, limits).value).toEqual({
      items: [{ id: 1, children: TRUNCATED }],
    });
  });

  it('reports pruned: false and keeps scalars when nothing is over a limit', () => {
    expect(pruneJson({ a: [1, 2], b: null, c: true, d: 'x' })).toEqual({
      value: { a: [1, 2], b: null, c: true, d: 'x' },
      pruned: false,
    });
    expect(pruneJson(42)).toEqual({ value: 42, pruned: false });
  });

  it('survives pathological nesting', () => {
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 10_000; i++) {
      const next: Record<string, unknown> = {};
      deep.x = next;
      deep = next;
    }
    expect(pruneJson(root).pruned).toBe(true);
  });
});

describe('pruneJsonText', () => {
  it('returns undefined for text that is not a JSON object or array', () => {
    expect(pruneJsonText('plain text')).toBeUndefined();
    expect(pruneJsonText('{ not json')).toBeUndefined();
    expect(pruneJsonText('"a string"')).toBeUndefined();
    expect(pruneJsonText('12345')).toBeUndefined();
  });

  it('returns undefined when pruning changes nothing', () => {
    expect(pruneJsonText('{"a": [1, 2, 3]}')).toBeUndefined();
  });

  it('keeps a one-line document on one line and an indented one indented', () => {
    const doc = { items: [{ id: 1, help: 'x' }] };
    const compact = pruneJsonText(JSON.stringify(doc));
    expect(compact).toBe('{"items":[{"id":1}]}');
    const pretty = pruneJsonText(JSON.stringify(doc, null, 2));
    expect(pretty).toBe(JSON.stringify({ items: [{ id: 1 }] }, null, 2));
  });

  it('shrinks the seed 003 example a lot', () => {
    const text = JSON.stringify(seedExample());
    const pruned = pruneJsonText(text)!;
    expect(pruned.length).toBeLessThan(text.length / 2);
    expect((JSON.parse(pruned) as { elements: unknown[] }).elements).toHaveLength(200);
  });
});
