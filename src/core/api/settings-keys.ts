/**
 * Where each canonical setting lives in config.yaml. The file may use seed 000's
 * `context_storage`, seed 001's `context`, seed 002's camelCase `compaction` keys; a
 * setting that several sections can hold lists them in the loader's precedence order
 * (map-config.ts), and a change is written where the file already has it — else `home`.
 */

export type KeyPath = readonly string[];

export interface SourceLocation {
  /** Places that can hold the setting, the one that wins first. */
  precedence: KeyPath[];
  /** Where a setting the file does not have yet is written. */
  home: KeyPath;
}

const COMPACTION_CAMEL: Record<string, string> = {
  threshold_ratio: 'thresholdRatio',
  summary_prompt: 'summaryPrompt',
  summary_directives: 'summaryDirectives',
  retain_prompt: 'retainPrompt',
  retain_directives: 'retainDirectives',
  retain_last_turns: 'retainLastTurns',
};

const TOOL_OUTPUT_CAMEL: Record<string, string> = {
  context_budget_tokens: 'contextBudgetTokens',
  max_message_bytes: 'maxMessageBytes',
  max_line_length: 'maxLineLength',
};

const STORAGE: Record<string, KeyPath[]> = {
  keep_recent_messages: [
    ['context_storage', 'keep_recent_messages'],
    ['context', 'compression', 'keep_recent'],
  ],
  min_to_compress: [
    ['context', 'compression', 'min_to_compress'],
    ['context_storage', 'min_messages_to_summarize'],
  ],
  token_threshold: [['context', 'compression', 'token_threshold']],
};

const single = (path: KeyPath): SourceLocation => ({ precedence: [path], home: path });

/** The config.yaml location(s) of a canonical setting, e.g. ['compaction', 'threshold_ratio']. */
export function sourceLocation(key: KeyPath): SourceLocation {
  const [section, ...rest] = key;
  const field = rest[0] ?? '';
  switch (section) {
    case 'contexts_dir':
      return {
        precedence: [
          ['context_storage', 'base_dir'],
          ['context', 'base_dir'],
        ],
        home: ['context_storage', 'base_dir'],
      };
    case 'storage': {
      const places = STORAGE[field];
      if (places) {
        const home = field === 'min_to_compress' ? places[1]! : places[0]!;
        return { precedence: places, home };
      }
      return single(['context_storage', field]);
    }
    case 'inheritance':
      return single(['context', 'inheritance', field]);
    case 'compaction':
      return single(['compaction', COMPACTION_CAMEL[field] ?? field, ...rest.slice(1)]);
    case 'tool_output_cache':
      return single(['tool_output_cache', TOOL_OUTPUT_CAMEL[field] ?? field]);
    default:
      return single(key);
  }
}

/** The canonical setting a config.yaml key (as a ConfigError names it) belongs to. */
export function canonicalKey(sourceKey: string, knownKeys: readonly KeyPath[]): string | undefined {
  const bare = sourceKey.replace(/\[\d+\]/g, '');
  for (const key of knownKeys) {
    const { precedence } = sourceLocation(key);
    if (precedence.some((p) => p.join('.') === bare)) return key.join('.');
  }
  return undefined;
}
