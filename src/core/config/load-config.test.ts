import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appConfigSchema, defaultConfig } from './app-config';
import { ConfigError } from './config-error';
import { loadConfig } from './load-config';
import { SEED_000_EXAMPLE, SEED_001_EXAMPLE } from './seed-examples.fixture';
import { SUMMARY_PROMPT_EN, SUMMARY_PROMPT_JA } from './summary-prompt';
import { thrown, useTempDirs } from './test-helpers.fixture';

const tempDir = useTempDirs();

/** Loads `yaml` from a temp config.yaml; the environment is only what the test passes. */
function load(yaml: string, env: NodeJS.ProcessEnv = {}) {
  const dir = tempDir({ 'config.yaml': yaml });
  const file = path.join(dir, 'config.yaml');
  return { dir, ...loadConfig({ file, env }) };
}

function configError(yaml: string, env: NodeJS.ProcessEnv = {}): ConfigError {
  const dir = tempDir({ 'config.yaml': yaml });
  const error = thrown(() => loadConfig({ file: path.join(dir, 'config.yaml'), env }));
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('loadConfig: defaults', () => {
  it('uses defaults when the default file does not exist', () => {
    const home = tempDir();
    const { config, file } = loadConfig({ env: { XDG_CONFIG_HOME: home, HOME: home } });
    expect(file).toBeNull();
    expect(config).toEqual(defaultConfig());
    expect(config.contexts_dir).toBeNull();
    expect(config.storage).toMatchObject({
      enabled: true,
      compression_threshold: 0.7,
      token_threshold: null,
      keep_recent_messages: 5,
      min_to_compress: 5,
      cleanup_days: 30,
      summary_prompt: SUMMARY_PROMPT_JA,
      summary_prompt_en: SUMMARY_PROMPT_EN,
      durability: 'default',
    });
    expect(config.inheritance).toEqual({
      enabled: true,
      max_summary_tokens: 4000,
      expiry_days: 30,
    });
    expect(config.llm.provider).toBe('ollama');
    expect(config.llm.openai.base_url).toBe('https://api.openai.com/v1');
    expect(config.llm.ollama.base_url).toBe('http://127.0.0.1:11434');
    expect(config.llm.lmstudio.base_url).toBe('http://127.0.0.1:1234/v1');
    expect(config.tools.run_command).toBe(false);
    expect(appConfigSchema.safeParse(config).success).toBe(true);
  });

  it('reads the default file when it exists', () => {
    const home = tempDir({
      'context-workbench/config.yaml': 'context_storage:\n  cleanup_days: 9\n',
    });
    const { config, file } = loadConfig({ env: { XDG_CONFIG_HOME: home } });
    expect(file).toBe(path.join(home, 'context-workbench', 'config.yaml'));
    expect(config.storage.cleanup_days).toBe(9);
  });

  it('treats an empty file and empty sections as defaults', () => {
    expect(load('').config).toEqual(defaultConfig());
    expect(load('# nothing yet\n').config).toEqual(defaultConfig());
    expect(load('context_storage:\nllm:\n  openai:\n').config).toEqual(defaultConfig());
  });

  it('treats an empty value as not set', () => {
    const { config } = load('context_storage:\n  cleanup_days:\n  base_dir:\n');
    expect(config.storage.cleanup_days).toBe(30);
    expect(config.contexts_dir).toBeNull();
  });

  it('ignores top-level sections of other apps', () => {
    const { config } = load(
      'github:\n  token: abc\n  whatever: [1, 2]\ncontext_storage:\n  cleanup_days: 3\n',
    );
    expect(config.storage.cleanup_days).toBe(3);
  });

  it('fails when a file named explicitly does not exist', () => {
    const dir = tempDir();
    const missing = path.join(dir, 'nope.yaml');
    const error = thrown(() => loadConfig({ file: missing, env: {} })) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.code).toBe('not_found');
    expect(error.message).toBe(`config file not found: ${missing}`);
  });

  it('fails when $CWB_CONFIG names a missing file', () => {
    const dir = tempDir();
    const error = thrown(() => loadConfig({ env: { CWB_CONFIG: path.join(dir, 'x.yaml') } }));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain('config file not found');
  });
});

describe('loadConfig: seed examples', () => {
  it('loads seed 000 §9.1', () => {
    const { config, dir } = load(SEED_000_EXAMPLE, { OPENAI_API_KEY: 'sk-seed-000' });
    expect(config.contexts_dir).toBe(path.join(dir, 'contexts'));
    expect(config.storage).toMatchObject({
      enabled: true,
      compression_threshold: 0.7,
      token_threshold: null,
      keep_recent_messages: 5,
      cleanup_days: 30,
    });
    expect(config.storage.summary_prompt).toBe(SUMMARY_PROMPT_JA);
    expect(config.llm.provider).toBe('openai');
    expect(config.llm.openai).toEqual({
      model: 'gpt-4o',
      context_length: 128000,
      api_key: 'sk-seed-000',
      // The seed writes the bare host and had its client add /v1.
      base_url: 'https://api.openai.com/v1',
    });
    expect(config.llm.ollama).toEqual({
      model: 'qwen3-30b',
      context_length: 32768,
      base_url: 'http://127.0.0.1:11434',
    });
  });

  it('loads seed 001 §13.1 and maps it', () => {
    const { config, dir } = load(SEED_001_EXAMPLE);
    expect(config.contexts_dir).toBe(path.join(dir, 'contexts'));
    expect(config.storage).toMatchObject({
      compression_threshold: 0.7,
      token_threshold: 8000,
      keep_recent_messages: 10,
      min_to_compress: 5,
    });
    expect(config.inheritance).toEqual({
      enabled: true,
      max_summary_tokens: 4000,
      expiry_days: 30,
    });
  });

  it("applies seed 001's compression defaults to a context-only file", () => {
    const { config } = load('context:\n  base_dir: data\n');
    expect(config.storage.token_threshold).toBe(8000);
    expect(config.storage.keep_recent_messages).toBe(10);
  });

  it("keeps seed 000's defaults when context only adds inheritance", () => {
    const { config } = load(
      'context_storage:\n  enabled: true\ncontext:\n  inheritance:\n    expiry_days: 7\n',
    );
    expect(config.storage.token_threshold).toBeNull();
    expect(config.storage.keep_recent_messages).toBe(5);
    expect(config.inheritance.expiry_days).toBe(7);
  });
});

describe('loadConfig: precedence between the two seed sections', () => {
  const both = [
    'context_storage:',
    '  base_dir: from-storage',
    '  keep_recent_messages: 3',
    '  min_messages_to_summarize: 12',
    'context:',
    '  base_dir: from-context',
    '  compression:',
    '    token_threshold: 6000',
    '    keep_recent: 20',
    '    min_to_compress: 7',
    '',
  ].join('\n');

  it('lets context_storage win for keys both define', () => {
    const { config, dir } = load(both);
    expect(config.contexts_dir).toBe(path.join(dir, 'from-storage'));
    expect(config.storage.keep_recent_messages).toBe(3);
  });

  it('lets context.compression win for keys only it defines', () => {
    const { config } = load(both);
    expect(config.storage.token_threshold).toBe(6000);
    expect(config.storage.min_to_compress).toBe(7);
  });

  it('falls back to the other section when one leaves a key out', () => {
    const { config } = load(
      'context_storage:\n  min_messages_to_summarize: 12\ncontext:\n  compression:\n    keep_recent: 20\n',
    );
    expect(config.storage.min_to_compress).toBe(12);
    expect(config.storage.keep_recent_messages).toBe(20);
  });
});

describe('loadConfig: values', () => {
  it('resolves base_dir against the config file folder, absolute paths unchanged', () => {
    const { config, dir } = load('context_storage:\n  base_dir: ../shared/contexts\n');
    expect(config.contexts_dir).toBe(path.resolve(dir, '../shared/contexts'));
    const absolute = path.resolve('/srv/contexts');
    expect(
      load(`context_storage:\n  base_dir: ${JSON.stringify(absolute)}\n`).config.contexts_dir,
    ).toBe(absolute);
  });

  it('reads our own keys', () => {
    const { config } = load(
      [
        'context_storage:',
        '  durability: fsync',
        '  summary_prompt_en: "Summarize: {messages}"',
        'llm:',
        '  provider: lmstudio',
        '  lmstudio:',
        '    model: qwen3-30b',
        '    base_url: http://localhost:1234/v1/',
        '  openai:',
        '    max_output_tokens: 2048',
        'tools:',
        '  run_command: true',
        '',
      ].join('\n'),
    );
    expect(config.storage.durability).toBe('fsync');
    expect(config.storage.summary_prompt_en).toBe('Summarize: {messages}');
    expect(config.llm.provider).toBe('lmstudio');
    expect(config.llm.lmstudio).toEqual({
      model: 'qwen3-30b',
      base_url: 'http://localhost:1234/v1',
    });
    expect(config.llm.openai.max_output_tokens).toBe(2048);
    expect(config.tools.run_command).toBe(true);
  });
});

describe('loadConfig: ${VAR} substitution', () => {
  it('replaces references with environment variables', () => {
    const { config } = load(
      'llm:\n  openai:\n    api_key: "${KEY}"\n    context_length: ${CTX}\n    base_url: "http://${HOST}:8080/v1"\n',
      { KEY: 'sk-abc', CTX: '64000', HOST: 'gpu-box' },
    );
    expect(config.llm.openai.api_key).toBe('sk-abc');
    expect(config.llm.openai.context_length).toBe(64000);
    expect(config.llm.openai.base_url).toBe('http://gpu-box:8080/v1');
  });

  it('keeps $${VAR} as a literal ${VAR}', () => {
    const { config } = load('context_storage:\n  summary_prompt: "cost: $${PRICE} {messages}"\n');
    expect(config.storage.summary_prompt).toBe('cost: ${PRICE} {messages}');
  });

  it('does not touch sections of other apps', () => {
    expect(() => load('other_app:\n  token: "${NOT_SET_ANYWHERE}"\n')).not.toThrow();
  });

  it('fails on an unset variable, naming the key and the variable', () => {
    const error = configError('llm:\n  openai:\n    api_key: "${OPENAI_API_KEY}"\n');
    expect(error.key).toBe('llm.openai.api_key');
    expect(error.message).toContain('llm.openai.api_key');
    expect(error.message).toContain('OPENAI_API_KEY');
    expect(error.message).toContain('not set');
  });

  it('shows the reference, never the secret, when a substituted value is invalid', () => {
    const error = configError('llm:\n  openai:\n    base_url: "${URL}"\n', {
      URL: 'ftp://secret-host',
    });
    expect(error.message).toContain('"${URL}"');
    expect(error.message).not.toContain('secret-host');
  });
});

describe('loadConfig: errors name the key, the value and what is allowed', () => {
  it('compression_threshold 1.5', () => {
    const error = configError('context_storage:\n  compression_threshold: 1.5\n');
    expect(error.message).toMatch(
      /config\.yaml: context_storage\.compression_threshold = 1\.5 is not allowed: expected a number greater than 0 and at most 1$/,
    );
    expect(error).toMatchObject({ key: 'context_storage.compression_threshold', value: 1.5 });
    expect(error.allowed).toBe('a number greater than 0 and at most 1');
    expect(error.file).toContain('config.yaml');
  });

  it('cleanup_days "x"', () => {
    const error = configError('context_storage:\n  cleanup_days: "x"\n');
    expect(error.message).toContain(
      'context_storage.cleanup_days = "x" is not allowed: expected a whole number of days ≥ 1',
    );
  });

  it('cleanup_days 0 and 2.5', () => {
    expect(configError('context_storage:\n  cleanup_days: 0\n').message).toContain(
      'cleanup_days = 0',
    );
    expect(configError('context_storage:\n  cleanup_days: 2.5\n').message).toContain(
      'cleanup_days = 2.5',
    );
  });

  it('provider "foo"', () => {
    const error = configError('llm:\n  provider: foo\n');
    expect(error.message).toContain(
      'llm.provider = "foo" is not allowed: expected one of "openai", "ollama", "lmstudio"',
    );
  });

  it('an unknown key inside context_storage', () => {
    const error = configError('context_storage:\n  compresion_threshold: 0.5\n  other: 1\n');
    expect(error.key).toBe('context_storage.compresion_threshold');
    expect(error.message).toContain(
      'context_storage.compresion_threshold = 0.5 is not allowed: unknown key',
    );
    expect(error.message).toContain('compression_threshold');
    expect(error.message).toContain('also unknown: other');
  });

  it('an unknown key in a nested section', () => {
    const error = configError('context:\n  compression:\n    keep: 3\n');
    expect(error.message).toContain('context.compression.keep = 3 is not allowed: unknown key');
    expect(error.message).toContain(
      'context.compression accepts token_threshold, keep_recent, min_to_compress',
    );
  });

  it('a section that is not a mapping', () => {
    const error = configError('llm: openai\n');
    expect(error.message).toContain(
      'llm = "openai" is not allowed: expected a mapping with the keys provider, openai, ollama, lmstudio',
    );
  });

  it('a boolean written as a word', () => {
    const error = configError('tools:\n  run_command: yes\n');
    expect(error.message).toContain(
      'tools.run_command = "yes" is not allowed: expected true or false',
    );
  });

  it('a literal API key of the wrong type is not echoed', () => {
    const error = configError('llm:\n  openai:\n    api_key: 12345678\n');
    expect(error.key).toBe('llm.openai.api_key');
    expect(error.message).not.toContain('12345678');
  });

  it('YAML syntax error with line and column', () => {
    const error = configError('context_storage:\n  enabled: true\n    cleanup_days: 3\n');
    expect(error.message).toMatch(/config\.yaml:3:\d+: YAML syntax error: /);
  });

  it('a top level that is not a mapping', () => {
    expect(configError('- a\n- b\n').message).toContain('the top level must be a mapping');
    expect(configError('just text\n').message).toContain('found the value "just text"');
  });
});
