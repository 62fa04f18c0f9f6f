import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/config-error';
import { parseConfigText } from '../config/load-config';
import { loadConfig } from '../config/load-config';
import { PriceBook } from './price-book';
import { parsePricing } from './pricing-config';
import { taskCost } from './task-cost';
import type { TaskRow } from '../../shared/task-types';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const usage = (input: number, output: number, read = 0, write = 0) => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_tokens: read,
  cache_creation_tokens: write,
});

describe('PriceBook', () => {
  const book = new PriceBook();

  it('prices dated and provider-prefixed names by their longest known prefix', () => {
    // 1M input at $3 + 1M output at $15 + 1M cache reads at $0.30 + 1M cache writes at $3.75
    expect(book.costOf(usage(1e6, 1e6, 1e6, 1e6), 'claude-sonnet-4-20250514').usd).toBeCloseTo(
      22.05,
    );
    expect(book.priceOf('anthropic/Claude-Sonnet-4-5-20250929')?.prefix).toBe('claude-sonnet-4-5');
    expect(book.priceOf('gpt-4o-mini-2024-07-18')?.prefix).toBe('gpt-4o-mini');
    expect(book.priceOf('gpt-5-codex')?.output).toBe(10);
    expect(book.priceOf('o3-pro')?.input).toBe(20);
    expect(book.priceOf('gemini-2.5-flash-lite')?.prefix).toBe('gemini-2.5-flash-lite');
  });

  it('says unknown, never $0, for an unknown model, a missing model or no usage', () => {
    expect(book.costOf(usage(10, 10), 'llama3.1:8b')).toEqual({
      usd: null,
      unknown: 'unknown_model',
    });
    expect(book.costOf(usage(10, 10), null)).toEqual({ usd: null, unknown: 'no_model' });
    expect(book.costOf(usage(0, 0), 'gpt-4o')).toEqual({ usd: null, unknown: 'no_usage' });
  });

  it('takes config overrides over the shipped table, and prices local models the table lacks', () => {
    const own = new PriceBook({
      'claude-sonnet-4': { input: 1, output: 1, cache_read: 1, cache_write: 1 },
      'llama3.1': { input: 0, output: 0, cache_read: 0, cache_write: 0 },
    });
    expect(own.costOf(usage(1e6, 1e6), 'claude-sonnet-4-20250514').usd).toBe(2);
    // The longer shipped prefix still prices its own models.
    expect(own.costOf(usage(1e6, 0), 'claude-sonnet-4-5').usd).toBe(3);
    expect(own.costOf(usage(1e6, 1e6), 'llama3.1:8b').usd).toBe(0);
    expect(own.overrides).toBe(2);
  });

  it('rates the models it can price per token, and none it cannot', () => {
    const book = new PriceBook();
    const rates = book.rates(['gpt-4o', 'mystery-model', null]);
    expect(rates.map((r) => r.model)).toEqual(['gpt-4o']);
    const usd = (r: (typeof rates)[number]) => r.input * 1000 + r.output * 100;
    expect(usd(rates[0]!)).toBeCloseTo(book.costOf(usage(1000, 100), 'gpt-4o').usd!, 12);
  });
});

describe('pricing in config.yaml', () => {
  it('loads a pricing section, filling cache prices with the input price', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-pricing-'));
    const file = path.join(dir, 'config.yaml');
    fs.writeFileSync(file, 'pricing:\n  my-model: { input: 2, output: 4 }\n');
    const loaded = loadConfig({ file, env: {} });
    expect(loaded.pricing).toEqual({
      'my-model': { input: 2, output: 4, cache_read: 2, cache_write: 2 },
    });
    fs.rmSync(dir, { recursive: true });
  });

  it('rejects a bad price with the key as written and what is allowed', () => {
    const parse = (text: string) =>
      parseConfigText(text, { file: 'config.yaml', baseDir: '/', env: {} });
    expect(() => parse('pricing:\n  my-model: { input: 2, output: -1 }\n')).toThrow(
      /config\.yaml: pricing\.my-model\.output = -1 is not allowed: expected .*dollars per million tokens/,
    );
    expect(() => parse('pricing:\n  my-model: { input: 2, output: 1, cached: 1 }\n')).toThrow(
      /pricing\.my-model = .* unknown key cached/,
    );
    expect(() => parsePricing('cheap', 'c.yaml')).toThrow(ConfigError);
  });
});

describe('taskCost', () => {
  it('adds compactions that called a model, per model, and keeps unknown honest', () => {
    const row = {
      model: 'claude-sonnet-4-5',
      ...usage(1e6, 0),
    } as TaskRow;
    const cost = taskCost(
      row,
      [
        {
          id: 1,
          strategy: 'summarize',
          llm_usage: usage(1e6, 0),
          params: { model: 'gpt-4o-mini' },
        },
        { id: 2, strategy: 'tool-output-trim', llm_usage: null },
      ],
      new PriceBook(),
    );
    expect(cost.total.usd).toBeCloseTo(3.15);
    expect(cost.models.map((m) => [m.model, m.cost.usd])).toEqual([
      ['claude-sonnet-4-5', 3],
      ['gpt-4o-mini', expect.closeTo(0.15, 10)],
    ]);
    expect(cost.compactions[1]!.cost).toBeNull();
    const unknown = taskCost({ ...row, model: 'local-llm' }, [], new PriceBook());
    expect(unknown.total).toEqual({ usd: null, unknown: 'unknown_model' });
  });
});
