import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../src/core/config/load-config';
import { REPO_ROOT } from './support/run-ts';

const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');

describe('README', () => {
  it('its config example loads and means what the comments say', () => {
    const yamlBlock = /```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(yamlBlock).toBeDefined();
    const config = parseConfigText(yamlBlock!, {
      file: 'README.md',
      baseDir: REPO_ROOT,
      env: { OPENAI_API_KEY: 'sk-readme' },
    });
    expect(config.storage).toMatchObject({
      compression_threshold: 0.7,
      keep_recent_messages: 5,
      cleanup_days: 30,
      min_to_compress: 5,
    });
    expect(config.llm.provider).toBe('openai');
    expect(config.llm.openai).toMatchObject({
      model: 'gpt-4o',
      context_length: 128000,
      api_key: 'sk-readme',
    });
  });

  it('its test command is the one CI runs', () => {
    const ci = fs.readFileSync(path.join(REPO_ROOT, '.ci', 'run'), 'utf8');
    expect(readme).toContain('ELECTRON_SKIP_BINARY_DOWNLOAD=1 npm install && npm test');
    expect(ci).toMatch(/^ELECTRON_SKIP_BINARY_DOWNLOAD=1 npm install && npm test$/m);
  });
});
