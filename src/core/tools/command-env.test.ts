import { describe, expect, it } from 'vitest';
import { commandEnv, isSecretEnvName, secretEnvValues } from './command-env';

describe('commandEnv', () => {
  it('drops API keys, tokens and secrets by name, in any case', () => {
    for (const name of [
      'OPENAI_API_KEY',
      'ANTHROPIC_API_KEY',
      'GEMINI_API_KEY',
      'GITHUB_TOKEN',
      'NPM_TOKEN',
      'CLIENT_SECRET',
      'openrouter_api_key',
    ]) {
      expect(isSecretEnvName(name), name).toBe(true);
    }
    for (const name of ['PATH', 'HOME', 'TOKENIZER', 'API_KEY_FILE', 'SECRET_PLACE', 'LANG']) {
      expect(isSecretEnvName(name), name).toBe(false);
    }
  });

  it('drops variables holding a known secret value, whatever their name', () => {
    const env = commandEnv(
      { PATH: '/bin', MY_LLM_KEY: 'sk-1', OTHER: 'sk-2', EMPTY: '', OPENAI_API_KEY: 'x' },
      ['sk-1', ''],
    );
    expect(env).toEqual({ PATH: '/bin', OTHER: 'sk-2', EMPTY: '' });
  });

  it('drops a variable holding a known secret with a stray line break', () => {
    expect(commandEnv({ PATH: '/bin', MY_LLM_KEY: 'sk-long-key-1\n' }, ['sk-long-key-1'])).toEqual({
      PATH: '/bin',
    });
  });
});

describe('secretEnvValues', () => {
  it('gives the values of secret-named variables, trimmed too, but not short ones', () => {
    expect(
      secretEnvValues({
        OPENAI_API_KEY: 'sk-0123456789\n',
        GITHUB_TOKEN: 'ghp_abcdefgh',
        CI_TOKEN: 'true',
        PATH: '/usr/local/bin:/usr/bin',
      }).sort(),
    ).toEqual(['ghp_abcdefgh', 'sk-0123456789', 'sk-0123456789\n']);
  });
});
