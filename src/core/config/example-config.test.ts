import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from './app-config';
import { EXAMPLE_CONFIG_YAML } from './example-config';
import { loadConfig } from './load-config';
import { useTempDirs } from './test-helpers.fixture';

const tempDir = useTempDirs();

describe('EXAMPLE_CONFIG_YAML', () => {
  it('loads without error, with no environment at all', () => {
    const dir = tempDir({ 'config.yaml': EXAMPLE_CONFIG_YAML });
    expect(() => loadConfig({ file: path.join(dir, 'config.yaml'), env: {} })).not.toThrow();
  });

  it('yields the documented values, which are the defaults', () => {
    const dir = tempDir({ 'config.yaml': EXAMPLE_CONFIG_YAML });
    const { config } = loadConfig({ file: path.join(dir, 'config.yaml'), env: {} });
    const expected = defaultConfig();
    expected.llm.openai = { ...expected.llm.openai, model: 'gpt-4o', context_length: 128000 };
    expect(config).toEqual(expected);
  });
});
