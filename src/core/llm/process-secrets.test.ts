import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../config/load-config';
import { processSecrets } from './process-secrets';

const ENV = {
  OPENAI_API_KEY: 'sk-env-0123456789',
  MY_KEY: 'custom-secret-value',
  GITHUB_TOKEN: 'ghp_0123456789abcdef',
  CI_TOKEN: 'true',
  PATH: '/usr/bin',
};

describe('processSecrets', () => {
  it("has the config's secrets, the environment's provider keys and other secret-named values", () => {
    const config = parseConfigText(
      'llm:\n  lmstudio:\n    api_key: "${MY_KEY}"\n  openai:\n    base_url: "https://u:pass-word-1@proxy.example/v1"\n',
      { file: 'config.yaml', baseDir: '/tmp', env: ENV },
    );
    const secrets = processSecrets(config, ENV);
    expect(secrets).toEqual(
      expect.arrayContaining([
        'sk-env-0123456789',
        'custom-secret-value',
        'ghp_0123456789abcdef',
        'pass-word-1',
      ]),
    );
    expect(secrets).not.toContain('true');
    expect(secrets).not.toContain('/usr/bin');
    expect(secrets.map((s) => s.length)).toEqual(
      [...secrets.map((s) => s.length)].sort((a, b) => b - a),
    );
  });

  it('without a config (it did not load), the environment still counts', () => {
    expect(processSecrets(null, ENV).sort()).toEqual(['ghp_0123456789abcdef', 'sk-env-0123456789']);
  });
});
