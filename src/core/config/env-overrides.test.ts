import { describe, expect, it } from 'vitest';
import { defaultConfig } from './app-config';
import { ConfigError } from './config-error';
import { applyEnvOverrides } from './env-overrides';
import { thrown } from './test-helpers.fixture';

function withEnv(env: NodeJS.ProcessEnv) {
  const config = defaultConfig();
  applyEnvOverrides(config, env);
  return config.storage;
}

describe('applyEnvOverrides', () => {
  it('applies the three variables of seed 000 §9.2', () => {
    expect(
      withEnv({
        CONTEXT_STORAGE_ENABLED: 'false',
        COMPRESSION_THRESHOLD: '0.5',
        CLEANUP_DAYS: '7',
      }),
    ).toMatchObject({
      enabled: false,
      compression_threshold: 0.5,
      cleanup_days: 7,
    });
  });

  it('accepts true/false/1/0 in any case', () => {
    expect(withEnv({ CONTEXT_STORAGE_ENABLED: '0' }).enabled).toBe(false);
    expect(withEnv({ CONTEXT_STORAGE_ENABLED: 'FALSE' }).enabled).toBe(false);
    expect(withEnv({ CONTEXT_STORAGE_ENABLED: '1' }).enabled).toBe(true);
    expect(withEnv({ COMPRESSION_THRESHOLD: '1' }).compression_threshold).toBe(1);
  });

  it('ignores empty variables', () => {
    expect(withEnv({ CONTEXT_STORAGE_ENABLED: '', CLEANUP_DAYS: ' ' })).toMatchObject({
      enabled: true,
      cleanup_days: 30,
    });
  });

  it.each([
    ['CLEANUP_DAYS', 'abc', 'environment CLEANUP_DAYS="abc": expected a whole number of days ≥ 1'],
    ['CLEANUP_DAYS', '0', 'environment CLEANUP_DAYS="0": expected a whole number of days ≥ 1'],
    ['CLEANUP_DAYS', '1.5', 'environment CLEANUP_DAYS="1.5": expected a whole number of days ≥ 1'],
    [
      'COMPRESSION_THRESHOLD',
      '0',
      'environment COMPRESSION_THRESHOLD="0": expected a number greater than 0 and at most 1',
    ],
    [
      'COMPRESSION_THRESHOLD',
      '70%',
      'environment COMPRESSION_THRESHOLD="70%": expected a number greater than 0 and at most 1',
    ],
    [
      'CONTEXT_STORAGE_ENABLED',
      'yes',
      'environment CONTEXT_STORAGE_ENABLED="yes": expected true, false, 1 or 0',
    ],
  ])('rejects %s=%s', (name, value, message) => {
    const error = thrown(() => withEnv({ [name]: value })) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(message);
    expect(error).toMatchObject({ file: null, key: name, value });
  });
});
