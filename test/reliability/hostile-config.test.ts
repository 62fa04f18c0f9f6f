/**
 * Hostile input (issue 9): config.yaml text, fuzzed with fast-check. parseConfigText either
 * returns a config or throws a ConfigError whose message names the key (as the user wrote
 * it) or the line and column — never another exception type, for random text, random YAML
 * documents built from the real keys with values of every type, mutations of the example
 * config, `${VAR}` references and the environment overrides.
 */
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  EXAMPLE_CONFIG_YAML,
  loadConfig,
  parseConfigText,
} from '../../src/core/config';
import { useTempDir } from '../support/temp-dir';

const tempDir = useTempDir('cwb-hostile-config-');

const FILE = '/home/ann/.config/cwb/config.yaml';

/** The real sections and keys (so random documents reach the validation of every field). */
const KEYS: Record<string, string[]> = {
  context_storage: [
    'enabled',
    'base_dir',
    'compression_threshold',
    'keep_recent_messages',
    'min_messages_to_summarize',
    'cleanup_days',
    'summary_prompt',
    'summary_prompt_en',
    'durability',
  ],
  context: ['base_dir', 'compression', 'inheritance'],
  llm: ['provider', 'openai', 'ollama', 'lmstudio'],
  tools: ['run_command'],
  compaction: [
    'enabled',
    'auto',
    'pipeline',
    'thresholdRatio',
    'threshold_ratio',
    'model',
    'retainLastTurns',
    'importance_window',
    'condense',
    'truncate',
  ],
  tool_output_cache: ['enabled', 'maxInContextChars', 'budgetTokens'],
};
const NESTED: Record<string, string[]> = {
  compression: ['token_threshold', 'keep_recent', 'min_to_compress'],
  inheritance: ['enabled', 'max_summary_tokens', 'expiry_days'],
  openai: ['model', 'context_length', 'api_key', 'base_url', 'max_output_tokens'],
  ollama: ['model', 'context_length', 'base_url'],
  lmstudio: ['model', 'context_length', 'api_key', 'base_url'],
  importance_window: ['max_messages', 'recent_ratio', 'noisy_fields'],
  condense: ['threshold_percent', 'keep_messages', 'token_buffer_ratio'],
  truncate: ['fraction'],
};

const scalar = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 30 }),
  fc.constantFrom(
    '${OPENAI_API_KEY}',
    '${UNSET_VARIABLE_X}',
    '$${LITERAL}',
    'http://127.0.0.1:1/v1',
    'summarize',
    'fsync',
    'ollama',
    '-1',
    '0.5',
    '1e309',
    'NaN',
  ),
);
const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), scalar, { maxKeys: 3 }) },
);

function sectionOf(keys: string[]): fc.Arbitrary<Record<string, unknown>> {
  const known = fc.dictionary(
    fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom(...keys) },
      { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
    ),
    fc.oneof(
      value,
      ...keys
        .filter((k) => NESTED[k])
        .map((k) => fc.dictionary(fc.constantFrom(...NESTED[k]!), value, { maxKeys: 4 })),
    ),
    { maxKeys: 5 },
  );
  return fc.oneof(
    { weight: 4, arbitrary: known },
    { weight: 1, arbitrary: value.map((v) => ({ v })) },
  );
}

const documents: fc.Arbitrary<string> = fc
  .oneof(
    // Random text: YAML syntax errors, scalars, lists, anchors...
    fc.string({ maxLength: 200 }),
    fc.string({ unit: 'binary', maxLength: 100 }),
    // Documents over the real keys with values of every type.
    fc
      .dictionary(
        fc.constantFrom(...Object.keys(KEYS), 'unknown_section', 'contexts_dir'),
        fc.constantFrom(...Object.keys(KEYS)).chain((s) => fc.oneof(sectionOf(KEYS[s]!), value)),
        { maxKeys: 4 },
      )
      .map((doc) => yaml.dump(doc, { skipInvalid: true })),
    // The example config with a line dropped, duplicated or cut.
    fc
      .tuple(fc.nat(), fc.nat(), fc.constantFrom('drop', 'dup', 'cut', 'indent'))
      .map(([at, cut, op]) => {
        const lines = EXAMPLE_CONFIG_YAML.split('\n');
        const i = at % lines.length;
        if (op === 'drop') lines.splice(i, 1);
        else if (op === 'dup') lines.splice(i, 0, lines[i]!);
        else if (op === 'cut') lines[i] = lines[i]!.slice(0, cut % (lines[i]!.length + 1));
        else lines[i] = `  ${lines[i]}`;
        return lines.join('\n');
      }),
    fc.constantFrom(
      'a: &x [*x]',
      '!!js/function "x"',
      '? [a, b]\n: c',
      'llm: {provider: ',
      '---\nllm: {}\n',
      'x: !!binary AAAA',
      'a: b\na: c',
      `llm:\n${'  '.repeat(200)}x: 1`,
    ),
    // Several documents in one file: a known gap, tested on its own below.
  )
  .filter((text) => (text.match(/^(---|\.\.\.)/gm)?.length ?? 0) < 2);

const environments = fc.record(
  {
    OPENAI_API_KEY: fc.string({ maxLength: 20 }),
    CONTEXT_STORAGE_ENABLED: fc.string({ maxLength: 6 }),
    COMPRESSION_THRESHOLD: fc.oneof(fc.string({ maxLength: 6 }), fc.double().map(String)),
    CLEANUP_DAYS: fc.oneof(fc.string({ maxLength: 6 }), fc.integer().map(String)),
  },
  { requiredKeys: [] },
);

describe('hostile config.yaml', () => {
  it('parseConfigText returns a config or throws a ConfigError naming a key or a line, nothing else', () => {
    fc.assert(
      fc.property(documents, environments, (text, env) => {
        let config: unknown;
        try {
          config = parseConfigText(text, { file: FILE, baseDir: '/home/ann/.config/cwb', env });
        } catch (err) {
          expect(err, `${String(err)}\n--- for ---\n${text}`).toBeInstanceOf(ConfigError);
          const e = err as ConfigError;
          // The file (or "environment"), then the key as written or line:column, or the top level.
          expect(e.message).toMatch(/^(\/home\/ann\/\.config\/cwb\/config\.yaml|environment)/);
          const namesKey = e.key !== null && e.message.includes(e.key);
          const namesLine = /config\.yaml:\d+:\d+: /.test(e.message);
          const topLevel = /the top level must be a mapping/.test(e.message);
          expect(namesKey || namesLine || topLevel, e.message).toBe(true);
          // Secrets never appear in the message.
          if (env.OPENAI_API_KEY && env.OPENAI_API_KEY.length >= 8)
            expect(e.message).not.toContain(env.OPENAI_API_KEY);
          return;
        }
        expect(typeof config).toBe('object');
      }),
      { numRuns: 600 },
    );
  });

  // js-yaml reports "expected a single document in the stream" without a position
  // (error.mark is undefined): still a ConfigError naming the file, not a TypeError.
  it('a file with several YAML documents is a ConfigError, not a TypeError', () => {
    for (const text of ['---\n---\n', 'llm: {}\n---\nllm: {}\n', 'a: 1\n...\n---\nb: 2\n']) {
      expect(() => parseConfigText(text, { file: FILE, baseDir: '/tmp', env: {} })).toThrow(
        ConfigError,
      );
      expect(() => parseConfigText(text, { file: FILE, baseDir: '/tmp', env: {} })).toThrow(
        /YAML syntax error/,
      );
    }
  });

  /** `levels` levels of nine aliases each: 9^levels values from a few hundred bytes. */
  function aliasBomb(levels: number): { anchors: string; last: string } {
    let anchors = '  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n';
    let last = 'a';
    for (let i = 1; i < levels; i++) {
      anchors += `  l${i}: &l${i} [${Array(9).fill(`*${last}`).join(', ')}]\n`;
      last = `l${i}`;
    }
    return { anchors, last };
  }

  // Was: js-yaml shares aliased nodes, but `${VAR}` substitution, zod and the error message
  // walked them as copies — 9^7 values took seconds and 9^9 ("billion laughs") ran out of
  // memory. Now each section's expanded size is measured (shared nodes once) first.
  it('a YAML alias bomb under any section is a ConfigError naming the file and the key, before anything walks it', () => {
    const { anchors, last } = aliasBomb(9);
    const at: Record<string, string> = {
      context_storage: 'summary_prompt',
      context: 'compression',
      llm: 'openai',
      tools: 'run_command',
      compaction: 'pipeline',
      tool_output_cache: 'enabled',
    };
    for (const [section, key] of Object.entries(at)) {
      const text = `anchors:\n${anchors}${section}:\n  ${key}: *${last}\n`;
      let error: unknown;
      try {
        parseConfigText(text, { file: FILE, baseDir: '/tmp', env: {} });
      } catch (err) {
        error = err;
      }
      expect(error, section).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toMatch(
        new RegExp(
          `^${FILE.replace(/[./]/g, '\\$&')}: ${section}\\.${key}(\\[0\\])* expands to more than 8 MiB once its YAML aliases are followed`,
        ),
      );
    }
  });

  it('an alias inside its own anchor (a cycle) is a ConfigError naming the key, not a stack overflow', () => {
    for (const [text, key] of [
      ['llm: &x {openai: *x}\n', 'llm.openai'],
      ['compaction:\n  pipeline: &p\n    - *p\n', 'compaction.pipeline[0]'],
    ] as const) {
      expect(() => parseConfigText(text, { file: FILE, baseDir: '/tmp', env: {} })).toThrow(
        `${FILE}: ${key} contains itself (a YAML alias inside its own anchor)`,
      );
    }
  });

  it('a config file larger than 1 MiB is refused unread, naming the file', () => {
    const file = path.join(tempDir(), 'config.yaml');
    fs.writeFileSync(file, `# ${'x'.repeat(2 * 1024 * 1024)}\nllm:\n  provider: ollama\n`);
    expect(() => loadConfig({ file, env: {} })).toThrow(ConfigError);
    expect(() => loadConfig({ file, env: {} })).toThrow(
      `${file}: the config file is ${fs.statSync(file).size} bytes; more than 1048576 is not a config file`,
    );
  });
});
