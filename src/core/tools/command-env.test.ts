import { describe, expect, it } from 'vitest';
import { commandEnv, isSecretEnvName, secretEnvValues } from './command-env';

describe('commandEnv', () => {
  it('passes only allow-listed variables: a key under any name stays out, so does NODE_OPTIONS', () => {
    const env = commandEnv({
      PATH: '/bin',
      HOME: '/home/ann',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      TMPDIR: '/tmp',
      OPENAI_API_KEY: 'sk-1',
      MY_LLM_KEY: 'sk-2',
      DATABASE_URL: 'postgres://u:pw@db/x',
      HTTPS_PROXY: 'http://u:pw@proxy:3128',
      NODE_OPTIONS: '--require /tmp/evil.js',
      CWB_CONFIG: '/etc/cwb.yaml',
    });
    expect(env).toEqual({
      PATH: '/bin',
      HOME: '/home/ann',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      TMPDIR: '/tmp',
    });
  });

  it('adds the passed-through names from the in-memory env, but never a known secret value', () => {
    const env = commandEnv(
      { PATH: '/bin' },
      {
        passthrough: ['HTTPS_PROXY', 'SAME_AS_KEY', 'UNSET', 'GITHUB_TOKEN'],
        from: {
          HTTPS_PROXY: 'http://proxy:3128',
          SAME_AS_KEY: 'sk-long-key-1\n',
          GITHUB_TOKEN: 'ghp_x',
        },
        secretValues: ['sk-long-key-1', ''],
      },
    );
    expect(env).toEqual({ PATH: '/bin', HTTPS_PROXY: 'http://proxy:3128' });
  });

  it('knows secret-like names, in any case', () => {
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
