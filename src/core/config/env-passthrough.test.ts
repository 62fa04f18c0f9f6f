import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error';
import { loadConfig } from './load-config';
import { thrown, useTempDirs } from './test-helpers.fixture';

const tempDir = useTempDirs();

function load(yaml: string, env: NodeJS.ProcessEnv = {}) {
  const dir = tempDir({ 'config.yaml': yaml });
  return () => loadConfig({ file: path.join(dir, 'config.yaml'), env }).config;
}

describe('tools.env_passthrough', () => {
  it('is empty by default and takes plain variable names', () => {
    expect(load('')().tools.env_passthrough).toEqual([]);
    expect(
      load('tools:\n  env_passthrough: [HTTPS_PROXY, no_proxy, TOKENIZERS_PARALLELISM2]\n')().tools
        .env_passthrough,
    ).toEqual(['HTTPS_PROXY', 'no_proxy', 'TOKENIZERS_PARALLELISM2']);
  });

  it('refuses a name that looks like a credential, or is not a name, saying which item and why', () => {
    for (const [name, index] of [
      ['GITHUB_TOKEN', 1],
      ['OPENAI_API_KEY', 1],
      ['AWS_SECRET_ACCESS_KEY', 1],
      ['DB_PASSWORD', 1],
      ['NPM_AUTH', 1],
      ['MYAPIKEY', 1],
      ['1ABC', 1],
      ['A-B', 1],
    ] as const) {
      const error = thrown(load(`tools:\n  env_passthrough: [HOME, "${name}"]\n`));
      expect(error, name).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).key).toBe(`tools.env_passthrough[${index}]`);
      expect((error as ConfigError).message).toMatch(
        /tools\.env_passthrough\[1\] = .* is not allowed: expected an environment variable name .* does not look like a credential/,
      );
    }
  });

  it('refuses a variable the config reads a value from, whatever it is called', () => {
    const error = thrown(
      load(
        'llm:\n  openai:\n    api_key: "${LLM_PASS_VAR}"\ntools:\n  env_passthrough: [PATHS, LLM_PASS_VAR]\n',
        {
          LLM_PASS_VAR: 'sk-test-value',
        },
      ),
    ) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.key).toBe('tools.env_passthrough[1]');
    expect(error.message).toContain(
      'tools.env_passthrough[1] = "LLM_PASS_VAR" is not allowed: llm.openai.api_key reads its value ("${LLM_PASS_VAR}")',
    );
    expect(error.message).not.toContain('sk-test-value');
  });
});
