import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../../test/support/temp-dir';
import { loadConfig } from '../config/load-config';
import { configHandover } from './config-env';
import { taskProcessEnv } from './task-process-flags';

const tempDir = useTempDir('cwb-config-env-');

describe('what a host hands a task process', () => {
  it("the config's ${VAR}s, the provider keys, cwb's own and the passed-through names: set ones only", () => {
    const file = path.join(tempDir(), 'config.yaml');
    fs.writeFileSync(
      file,
      [
        'llm:',
        '  openai:',
        '    api_key: "${MY_LLM_KEY}"',
        '    base_url: "http://${LLM_HOST}/v1"',
        '# model: ${IN_A_COMMENT}',
        '    model: "$${NOT_A_REFERENCE}"',
        'tools:',
        '  env_passthrough: [HTTPS_PROXY, UNSET_ONE]',
        '',
      ].join('\n'),
    );
    const env = {
      PATH: '/bin',
      MY_LLM_KEY: 'sk-test-abc',
      LLM_HOST: '127.0.0.1:9',
      IN_A_COMMENT: 'x',
      NOT_A_REFERENCE: 'y',
      OPENAI_API_KEY: 'sk-env',
      COMPRESSION_THRESHOLD: '0.5',
      HTTPS_PROXY: 'http://proxy:3128',
      GITHUB_TOKEN: 'ghp_unrelated',
    };
    const handover = configHandover(file, env);
    expect(handover.configEnv).toEqual({
      MY_LLM_KEY: 'sk-test-abc',
      LLM_HOST: '127.0.0.1:9',
      IN_A_COMMENT: 'x',
      OPENAI_API_KEY: 'sk-env',
      COMPRESSION_THRESHOLD: '0.5',
      HTTPS_PROXY: 'http://proxy:3128',
    });
    // The config the task process would have loaded, which survives the trip as JSON (a
    // forked process's channel serializes messages as JSON).
    const config = handover.config!;
    expect(config).toEqual(loadConfig({ file, env }).config);
    expect(config.llm.openai.api_key).toBe('sk-test-abc');
    expect(config.storage.compression_threshold).toBe(0.5);
    expect(JSON.parse(JSON.stringify(config))).toEqual(config);
  });

  it('a config that does not load is not handed over, its references are (the task process reports the error)', () => {
    const file = path.join(tempDir(), 'config.yaml');
    fs.writeFileSync(file, 'llm:\n  openai:\n    api_key: "${K}"\n    context_length: many\n');
    expect(configHandover(file, { K: 'sk-k' })).toEqual({ configEnv: { K: 'sk-k' } });
    expect(configHandover(path.join(tempDir(), 'missing.yaml'), { K: 'sk-k' })).toEqual({
      configEnv: {},
    });
  });

  it("the task process's own environment holds none of it", () => {
    const env = taskProcessEnv({
      PATH: '/bin',
      HOME: '/h',
      OPENAI_API_KEY: 'sk-env',
      MY_LLM_KEY: 'sk-test-abc',
      NODE_OPTIONS: '--require x',
      CWB_CONFIG: '/c.yaml',
    });
    expect(env).toEqual({
      PATH: '/bin',
      HOME: '/h',
      MALLOC_ARENA_MAX: '2',
      MALLOC_MMAP_THRESHOLD_: '131072',
    });
  });
});
