import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from './app-config';
import { loadConfig } from './load-config';
import { ConfigError } from './config-error';
import { REDACTED, redactConfig, scrubSecrets, secretForms, secretValues } from './secrets';
import { thrown } from './test-helpers.fixture';
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

  it('a refused URL never shows its password in the error (it goes to stderr and logs)', () => {
    for (const url of ['ftp://me:hunter2-secret@proxy/v1', 'gopher://me:hunter2@secret@x']) {
      const err = thrown(() => load(`llm:\n  openai:\n    base_url: "${url}"\n`, {}));
      expect(err).toBeInstanceOf(ConfigError);
      const text = `${(err as ConfigError).message} ${JSON.stringify((err as ConfigError).value)}`;
      expect(text).not.toContain('hunter2');
      expect(text).toContain('//me:***@');
    }
  });

  it('secretForms: also JSON-escaped and URL-encoded, longest first, none below the minimum', () => {
    const forms = secretForms(['a/b"c', 'x'], 2);
    expect([...forms].sort()).toEqual(['a%2Fb%22c', 'a/b"c', 'a/b\\"c', 'a\\/b\\"c'].sort());
    expect(forms.map((f) => f.length)).toEqual([9, 7, 6, 5]);
    expect(secretForms(['', 'ab'])).toEqual(['ab']);
  });
});
