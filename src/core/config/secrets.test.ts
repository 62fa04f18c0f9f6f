import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from './app-config';
import { loadConfig } from './load-config';
import { REDACTED, redactConfig, scrubSecrets, secretValues } from './secrets';
import { useTempDirs } from './test-helpers.fixture';

const tempDir = useTempDirs();

function load(yaml: string, env: NodeJS.ProcessEnv) {
  const dir = tempDir({ 'config.yaml': yaml });
  return loadConfig({ file: path.join(dir, 'config.yaml'), env }).config;
}

const YAML = [
  'context_storage:',
  '  base_dir: "${DATA}/contexts"',
  'llm:',
  '  openai:',
  '    api_key: "${OPENAI_API_KEY}"',
  '    base_url: "https://proxy.example/v1?team=${TEAM_TOKEN}"',
  '  lmstudio:',
  '    api_key: lm-literal-key',
  '',
].join('\n');

const ENV = {
  OPENAI_API_KEY: 'sk-live-1234567890',
  TEAM_TOKEN: 'team-secret-42',
  DATA: '/srv/data',
};

describe('secrets', () => {
  it('lists every API key and every value that came from the environment', () => {
    const config = load(YAML, ENV);
    const secrets = secretValues(config);
    expect(secrets).toEqual(
      expect.arrayContaining(['sk-live-1234567890', 'team-secret-42', 'lm-literal-key']),
    );
    // Folder paths are not credentials; hiding them would make logs unreadable.
    expect(secrets).not.toContain('/srv/data');
  });

  it('lists a password embedded in a base URL', () => {
    const config = defaultConfig();
    config.llm.ollama.base_url = 'http://user:p%40ss@gpu:11434';
    expect(secretValues(config)).toEqual(expect.arrayContaining(['p%40ss', 'p@ss']));
  });

  it('has nothing for the defaults', () => {
    expect(secretValues(defaultConfig())).toEqual([]);
  });

  it('redactConfig output contains no secret', () => {
    const config = load(YAML, ENV);
    const redacted = redactConfig(config);
    const text = JSON.stringify(redacted);
    for (const secret of secretValues(config)) expect(text).not.toContain(secret);
    expect(redacted.llm.openai.api_key).toBe(REDACTED);
    expect(redacted.llm.lmstudio.api_key).toBe(REDACTED);
    expect(redacted.llm.openai.base_url).toBe('https://proxy.example/v1?team=***');
    expect(redacted.contexts_dir).toBe(config.contexts_dir);
  });

  it('redactConfig leaves the original untouched and keeps absent keys absent', () => {
    const config = load(YAML, ENV);
    redactConfig(config);
    expect(config.llm.openai.api_key).toBe('sk-live-1234567890');
    expect('api_key' in redactConfig(defaultConfig()).llm.openai).toBe(false);
  });

  it('scrubs secrets out of log text', () => {
    expect(scrubSecrets('auth sk-1 and sk-12', ['sk-12', 'sk-1'])).toBe('auth *** and ***');
  });
});
