import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appConfigSchema, defaultConfig, toolOutputBudgetTokens } from './app-config';
import { ConfigError } from './config-error';
import { loadConfig } from './load-config';
import { secretValues } from './secrets';
import { STRATEGY_NAMES, isStrategyName } from './strategy-names';
import { thrown, useTempDirs } from './test-helpers.fixture';

const tempDir = useTempDirs();

/** Loads `yaml` from a temp config.yaml; the environment is only what the test passes. */
function load(yaml: string, env: NodeJS.ProcessEnv = {}) {
  const dir = tempDir({ 'config.yaml': yaml });
  return loadConfig({ file: path.join(dir, 'config.yaml'), env }).config;
}

function configError(yaml: string, env: NodeJS.ProcessEnv = {}): ConfigError {
  const dir = tempDir({ 'config.yaml': yaml });
  const error = thrown(() => loadConfig({ file: path.join(dir, 'config.yaml'), env }));
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

const ALL_STRATEGIES =
  '"summarize", "retain-summary", "tool-output-trim", "importance-window", "condense", "truncate", "extractive", "observation-mask"';

/** Seed 002 §2.2 and §1.3 with every key set, plus our strategy sections. */
const SEED_002_STYLE = `compaction:
  enabled: true
  auto: false
  thresholdRatio: 0.75
  model: "gpt-4o-mini"
  summaryPrompt: |
    Summarize the conversation inside <summary></summary>.
  summaryDirectives:
    - Keep every file path that was written.
    - Keep failing test names.
  retainPrompt: "List in <retain> what must survive."
  retainDirectives: ["Output refs of tool results"]
  retainLastTurns: 2
  pipeline: [tool-output-trim, retain-summary, truncate]
  importance_window:
    max_messages: 16
    recent_ratio: 0.5
    max_text_chars: 500
    max_data_chars: 1500
    max_ui_nodes: 100
    max_ui_depth: 3
    max_ui_children: 10
    noisy_fields: [description, help, tooltip]
  condense:
    threshold_percent: 80
    keep_messages: 4
    token_buffer_ratio: 0.15
  truncate:
    fraction: 0.25
tool_output_cache:
  enabled: false
  contextBudgetTokens: 30000
  maxMessageBytes: 20480
  maxLineLength: 400
`;

describe('compaction and tool_output_cache: defaults', () => {
  it('fills every key when the sections are missing', () => {
    const config = load('');
    expect(config.compaction).toEqual({
      enabled: true,
      auto: true,
      threshold_ratio: 0.8,
      model: null,
      summary_prompt: null,
      summary_directives: [],
      retain_prompt: null,
      retain_directives: [],
      retain_last_turns: 1,
      pipeline: ['tool-output-trim', 'summarize'],
      importance_window: {
        max_messages: 24,
        recent_ratio: 0.4,
        max_text_chars: 1000,
        max_data_chars: 2000,
        max_ui_nodes: 200,
        max_ui_depth: 2,
        max_ui_children: 20,
        noisy_fields: ['description', 'help'],
      },
      condense: { threshold_percent: 100, keep_messages: 3, token_buffer_ratio: 0.1 },
      truncate: { fraction: 0.5 },
      observation_mask: { keep_turns: 10 },
      fact_ledger: { max_tokens: 6000, share: 0.07, context_share: 0.1 },
    });
    expect(config.tool_output_cache).toEqual({
      enabled: true,
      context_budget_tokens: null,
      max_message_bytes: 51200,
      max_line_length: 2000,
    });
    expect(appConfigSchema.safeParse(config).success).toBe(true);
  });

  it('treats empty sections and empty values as defaults', () => {
    const yaml = [
      'compaction:',
      '  model:',
      '  summaryPrompt: null',
      '  pipeline:',
      '  importance_window:',
      '  condense:',
      '    keep_messages: ~',
      'tool_output_cache:',
      '  contextBudgetTokens: null',
      '',
    ].join('\n');
    expect(load(yaml)).toEqual(defaultConfig());
  });

  it('keeps the existing summarize keys where they are', () => {
    const config = load(
      'context_storage:\n  keep_recent_messages: 7\ncompaction:\n  auto: false\n',
    );
    expect(config.storage.keep_recent_messages).toBe(7);
    expect(config.compaction.auto).toBe(false);
    expect(config.compaction).not.toHaveProperty('keep_recent_messages');
  });
});

describe('compaction and tool_output_cache: values', () => {
  it('loads a full seed-002-style file and maps it to snake_case', () => {
    const config = load(SEED_002_STYLE);
    expect(config.compaction).toEqual({
      enabled: true,
      auto: false,
      threshold_ratio: 0.75,
      model: 'gpt-4o-mini',
      summary_prompt: 'Summarize the conversation inside <summary></summary>.\n',
      summary_directives: ['Keep every file path that was written.', 'Keep failing test names.'],
      retain_prompt: 'List in <retain> what must survive.',
      retain_directives: ['Output refs of tool results'],
      retain_last_turns: 2,
      pipeline: ['tool-output-trim', 'retain-summary', 'truncate'],
      importance_window: {
        max_messages: 16,
        recent_ratio: 0.5,
        max_text_chars: 500,
        max_data_chars: 1500,
        max_ui_nodes: 100,
        max_ui_depth: 3,
        max_ui_children: 10,
        noisy_fields: ['description', 'help', 'tooltip'],
      },
      condense: { threshold_percent: 80, keep_messages: 4, token_buffer_ratio: 0.15 },
      truncate: { fraction: 0.25 },
      observation_mask: { keep_turns: 10 },
      fact_ledger: { max_tokens: 6000, share: 0.07, context_share: 0.1 },
    });
    expect(config.tool_output_cache).toEqual({
      enabled: false,
      context_budget_tokens: 30000,
      max_message_bytes: 20480,
      max_line_length: 400,
    });
    expect(appConfigSchema.safeParse(config).success).toBe(true);
  });

  it('accepts every strategy, each once, in any order', () => {
    const pipeline = [...STRATEGY_NAMES].reverse();
    const config = load(`compaction:\n  pipeline: [${pipeline.join(', ')}]\n`);
    expect(config.compaction.pipeline).toEqual(pipeline);
  });

  it('accepts the edges of each range', () => {
    const config = load(
      [
        'compaction:',
        '  thresholdRatio: 1',
        '  retainLastTurns: 0',
        '  condense:',
        '    threshold_percent: 5',
        '    token_buffer_ratio: 0',
        '  importance_window:',
        '    max_ui_depth: 0',
        '    noisy_fields: []',
        'tool_output_cache:',
        '  contextBudgetTokens: 1000',
        '  maxMessageBytes: 1024',
        '  maxLineLength: 80',
        '',
      ].join('\n'),
    );
    expect(config.compaction).toMatchObject({ threshold_ratio: 1, retain_last_turns: 0 });
    expect(config.compaction.condense).toMatchObject({
      threshold_percent: 5,
      token_buffer_ratio: 0,
    });
    expect(config.compaction.importance_window.noisy_fields).toEqual([]);
    expect(config.tool_output_cache).toMatchObject({
      context_budget_tokens: 1000,
      max_message_bytes: 1024,
      max_line_length: 80,
    });
  });

  it('derives the tool output budget from the context window when it is not set', () => {
    const derived = defaultConfig().tool_output_cache;
    expect(toolOutputBudgetTokens(derived, 128000)).toBe(32000);
    expect(toolOutputBudgetTokens(derived, 32768)).toBe(20000);
    expect(toolOutputBudgetTokens(derived, 1_000_000)).toBe(60000);
    expect(toolOutputBudgetTokens({ context_budget_tokens: 5000 }, 128000)).toBe(5000);
  });

  it('exports the strategy names for the compaction engine', () => {
    expect(STRATEGY_NAMES).toEqual([
      'summarize',
      'retain-summary',
      'tool-output-trim',
      'importance-window',
      'condense',
      'truncate',
      'extractive',
      'observation-mask',
    ]);
    expect(isStrategyName('condense')).toBe(true);
    expect(isStrategyName('compress')).toBe(false);
  });
});

describe('compaction and tool_output_cache: ${VAR} substitution', () => {
  it('works for numbers, booleans, texts and list items', () => {
    const config = load(
      [
        'compaction:',
        '  auto: ${AUTO}',
        '  thresholdRatio: ${RATIO}',
        '  model: "${SUMMARY_MODEL}"',
        '  summaryDirectives: ["Answer in ${LANG}"]',
        '  pipeline: ["${FIRST}", summarize] # quoted: { starts a mapping inside [ ]',
        '  condense:',
        '    threshold_percent: ${PERCENT}',
        'tool_output_cache:',
        '  contextBudgetTokens: ${BUDGET}',
        '',
      ].join('\n'),
      {
        AUTO: 'false',
        RATIO: '0.6',
        SUMMARY_MODEL: 'qwen3:8b',
        LANG: 'English',
        FIRST: 'importance-window',
        PERCENT: '70',
        BUDGET: '25000',
      },
    );
    expect(config.compaction).toMatchObject({
      auto: false,
      threshold_ratio: 0.6,
      model: 'qwen3:8b',
      summary_directives: ['Answer in English'],
      pipeline: ['importance-window', 'summarize'],
    });
    expect(config.compaction.condense.threshold_percent).toBe(70);
    expect(config.tool_output_cache.context_budget_tokens).toBe(25000);
    // Like every substituted value (but folders), these count as secrets for the logs.
    expect(secretValues(config)).toContain('qwen3:8b');
  });

  it('fails on an unset variable inside a list, naming the item', () => {
    const error = configError('compaction:\n  retainDirectives: [ok, "${MISSING}"]\n');
    expect(error.key).toBe('compaction.retainDirectives[1]');
    expect(error.message).toContain('compaction.retainDirectives[1] = "${MISSING}"');
    expect(error.message).toContain('MISSING, which is not set');
  });

  it('shows the reference, not the substituted value, when it is invalid', () => {
    const error = configError('compaction:\n  pipeline: ["${STRATEGY}"]\n', {
      STRATEGY: 'secret-strategy',
    });
    expect(error.message).toContain('compaction.pipeline[0] = "${STRATEGY}" is not allowed');
    expect(error.message).not.toContain('secret-strategy');
  });
});

describe('compaction and tool_output_cache: errors name the key, the value and what is allowed', () => {
  it('thresholdRatio 1.5', () => {
    const error = configError('compaction:\n  thresholdRatio: 1.5\n');
    expect(error.message).toMatch(
      /config\.yaml: compaction\.thresholdRatio = 1\.5 is not allowed: expected a number greater than 0 and at most 1$/,
    );
    expect(error).toMatchObject({ key: 'compaction.thresholdRatio', value: 1.5 });
  });

  it('a pipeline with an unknown strategy lists the allowed ones', () => {
    const error = configError('compaction:\n  pipeline: [summarize, compress]\n');
    expect(error.message).toMatch(
      /config\.yaml: compaction\.pipeline\[1\] = "compress" is not allowed: expected one of /,
    );
    expect(error.message).toContain(`expected one of ${ALL_STRATEGIES}`);
    expect(error).toMatchObject({ key: 'compaction.pipeline[1]', value: 'compress' });
  });

  it('a pipeline naming a strategy twice', () => {
    const error = configError('compaction:\n  pipeline: [summarize, truncate, summarize]\n');
    expect(error.message).toContain(
      'compaction.pipeline[2] = "summarize" is not allowed: expected each strategy at most once ("summarize" is already at [0])',
    );
    expect(error).toMatchObject({ key: 'compaction.pipeline[2]', value: 'summarize' });
  });

  it('an empty pipeline, or one that is not a list', () => {
    for (const written of ['[]', 'summarize']) {
      const error = configError(`compaction:\n  pipeline: ${written}\n`);
      expect(error.key).toBe('compaction.pipeline');
      expect(error.message).toContain(
        `is not allowed: expected a non-empty list of strategies, each one of ${ALL_STRATEGIES}`,
      );
    }
  });

  it('retainLastTurns -1', () => {
    const error = configError('compaction:\n  retainLastTurns: -1\n');
    expect(error.message).toContain(
      'compaction.retainLastTurns = -1 is not allowed: expected a whole number ≥ 0',
    );
  });

  it('condense.threshold_percent 3', () => {
    const error = configError('compaction:\n  condense:\n    threshold_percent: 3\n');
    expect(error.message).toContain(
      'compaction.condense.threshold_percent = 3 is not allowed: expected a whole number from 5 to 100',
    );
    expect(error).toMatchObject({ key: 'compaction.condense.threshold_percent', value: 3 });
  });

  it('an unknown key inside compaction, with the spelling it probably meant', () => {
    const error = configError('compaction:\n  threshold_ratio: 0.5\n');
    expect(error.key).toBe('compaction.threshold_ratio');
    expect(error.message).toContain(
      'compaction.threshold_ratio = 0.5 is not allowed: unknown key, did you mean thresholdRatio?',
    );
    expect(error.message).toContain('compaction accepts enabled, auto, thresholdRatio, model,');
  });

  it('an unknown key inside a strategy section', () => {
    const error = configError('compaction:\n  importance_window:\n    max_web_elements: 200\n');
    expect(error.message).toContain(
      'compaction.importance_window.max_web_elements = 200 is not allowed: unknown key (compaction.importance_window accepts max_messages,',
    );
  });

  it('an empty directive', () => {
    const error = configError('compaction:\n  summaryDirectives:\n    - Keep paths\n    -\n');
    expect(error.message).toContain(
      'compaction.summaryDirectives[1] = null is not allowed: expected a non-empty text',
    );
  });

  it('the other ranges', () => {
    const cases: [string, string][] = [
      ['compaction:\n  importance_window:\n    recent_ratio: 0\n', 'recent_ratio = 0'],
      ['compaction:\n  importance_window:\n    max_messages: 0\n', 'max_messages = 0'],
      ['compaction:\n  condense:\n    threshold_percent: 101\n', 'threshold_percent = 101'],
      ['compaction:\n  condense:\n    threshold_percent: 50.5\n', 'threshold_percent = 50.5'],
      ['compaction:\n  condense:\n    keep_messages: 0\n', 'keep_messages = 0'],
      ['compaction:\n  condense:\n    token_buffer_ratio: 1\n', 'token_buffer_ratio = 1'],
      ['compaction:\n  truncate:\n    fraction: 1\n', 'truncate.fraction = 1'],
      ['compaction:\n  enabled: yes\n', 'compaction.enabled = "yes"'],
      ['tool_output_cache:\n  contextBudgetTokens: 999\n', 'contextBudgetTokens = 999'],
      ['tool_output_cache:\n  maxMessageBytes: 1000\n', 'maxMessageBytes = 1000'],
      ['tool_output_cache:\n  maxLineLength: 79\n', 'maxLineLength = 79'],
    ];
    for (const [yaml, shown] of cases) {
      expect(configError(yaml).message).toContain(`${shown} is not allowed: expected `);
    }
  });

  it('an unknown key inside tool_output_cache', () => {
    const error = configError('tool_output_cache:\n  max_message_bytes: 4096\n');
    expect(error.message).toContain(
      'tool_output_cache.max_message_bytes = 4096 is not allowed: unknown key, did you mean maxMessageBytes?',
    );
  });
});
