import { z } from 'zod';
import { STRATEGY_NAMES } from './strategy-names';

/**
 * Schemas for the config sections exactly as users write them (seed 000's
 * `context_storage` and `llm`, seed 001's `context`, seed 002's `compaction` and
 * `tool_output_cache` in its own camelCase, our `tools`). Validating the user's
 * own shape, before mapping, is what lets every error name the key the user typed.
 *
 * Every field carries a sentence saying what it accepts; errors quote it. A field left
 * empty in YAML (`key:`) is null and means "not set".
 */

interface SectionInfo {
  fields: Record<string, z.ZodType>;
  allowed: Record<string, string>;
}

const sections = new WeakMap<z.ZodType, SectionInfo>();

type Nullish<F extends Record<string, z.ZodType>> = {
  [K in keyof F]: z.ZodOptional<z.ZodNullable<F[K]>>;
};

/** A mapping whose keys are all optional and whose unknown keys are errors. */
function section<F extends Record<string, z.ZodType>>(
  fields: F,
  allowed: { [K in keyof F]: string },
): z.ZodObject<Nullish<F>, z.core.$strict> {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, schema] of Object.entries(fields)) shape[key] = schema.nullish();
  // The mapped type is exactly what the loop builds; TypeScript cannot follow a loop.
  const schema = z.strictObject(shape) as unknown as z.ZodObject<Nullish<F>, z.core.$strict>;
  sections.set(schema, { fields, allowed });
  return schema;
}

/** List schemas made by `list()`, with what one item accepts. */
const lists = new WeakMap<z.ZodType, { item: z.ZodType; allowed: string }>();

export function sectionKeys(schema: z.ZodType): string[] {
  return Object.keys(sections.get(schema)?.fields ?? {});
}

/** The schema of the field at `path` below `schema`, through sections and list items. */
function fieldAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let current: z.ZodType | undefined = schema;
  for (const segment of path) {
    const info = sections.get(current);
    const list = lists.get(current);
    if (info !== undefined) current = info.fields[String(segment)];
    else if (list !== undefined && typeof segment === 'number') current = list.item;
    else current = undefined;
    if (current === undefined) return undefined;
  }
  return current;
}

/** The section schema at `path` below `schema`, if `path` names a section. */
export function sectionAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  const found = fieldAt(schema, path);
  return found !== undefined && sections.has(found) ? found : undefined;
}

/** What the field or list item at `path` (below `schema`) accepts, for error messages. */
export function allowedAt(schema: z.ZodType, path: readonly PropertyKey[]): string {
  const last = path[path.length - 1];
  const parent = path.length === 0 ? undefined : fieldAt(schema, path.slice(0, -1));
  if (parent !== undefined) {
    const allowed = sections.get(parent)?.allowed[String(last)];
    if (allowed !== undefined) return allowed;
    const list = lists.get(parent);
    if (list !== undefined && typeof last === 'number') return list.allowed;
  }
  const own = sectionAt(schema, path);
  return own === undefined ? 'a valid value' : describeSection(own);
}

export function describeSection(schema: z.ZodType): string {
  return `a mapping with the keys ${sectionKeys(schema).join(', ')}`;
}

// ${VAR} substitution always yields strings, so numbers and booleans also accept their
// string spelling; that is what makes `context_length: ${CTX}` work.
const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function numeric<T extends z.ZodType>(schema: T) {
  return z.preprocess(
    (v) => (typeof v === 'string' && NUMBER_TEXT.test(v.trim()) ? Number(v.trim()) : v),
    schema,
  );
}

const bool = () =>
  z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean());
const wholeAtLeast = (min: number) => numeric(z.number().int().min(min));
const text = () => z.string().min(1);
const httpUrl = () =>
  z.string().refine((v) => {
    try {
      const url = new URL(v);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  });

/**
 * A YAML list whose items are checked one by one, so an error names the item
 * (`compaction.pipeline[1]`) and says what one item accepts. `distinct` names what the
 * items are, for the error on a repeated one.
 */
function list<T extends z.ZodType>(
  item: T,
  itemAllowed: string,
  rules: { nonEmpty?: boolean; distinct?: string } = {},
) {
  const base = rules.nonEmpty === true ? z.array(item).min(1) : z.array(item);
  const { distinct } = rules;
  const schema =
    distinct === undefined
      ? base
      : base.superRefine((items, ctx) => {
          items.forEach((value, i) => {
            const first = items.indexOf(value);
            if (first === i) return;
            ctx.addIssue({
              code: 'custom',
              path: [i],
              input: value,
              message: `repeated ${distinct}`,
              params: {
                allowed: `each ${distinct} at most once (${JSON.stringify(value)} is already at [${first}])`,
              },
            });
          });
        });
  lists.set(schema, { item, allowed: itemAllowed });
  return schema;
}

const WHOLE_0 = 'a whole number ≥ 0';
const WHOLE_1 = 'a whole number ≥ 1';
const DAYS = 'a whole number of days ≥ 1';
const TOKENS = 'a whole number of tokens ≥ 1';
const BOOL = 'true or false';
const URL_TEXT = 'an http:// or https:// URL';
const MODEL = 'a model name';
const API_KEY = 'a text, usually "${OPENAI_API_KEY}" to read it from the environment';
const DIR = "a folder path (a relative path is resolved against the config file's folder)";
const PROMPT = 'a non-empty text ({messages} marks where the messages go)';

export const RATIO_ALLOWED = 'a number greater than 0 and at most 1';
export const DAYS_ALLOWED = DAYS;

export const contextStorageSchema = section(
  {
    enabled: bool(),
    base_dir: text(),
    compression_threshold: numeric(z.number().gt(0).lte(1)),
    keep_recent_messages: wholeAtLeast(0),
    min_messages_to_summarize: wholeAtLeast(1),
    cleanup_days: wholeAtLeast(1),
    summary_prompt: text(),
    summary_prompt_en: text(),
    durability: z.enum(['default', 'fsync']),
  },
  {
    enabled: BOOL,
    base_dir: DIR,
    compression_threshold: RATIO_ALLOWED,
    keep_recent_messages: WHOLE_0,
    min_messages_to_summarize: WHOLE_1,
    cleanup_days: DAYS,
    summary_prompt: PROMPT,
    summary_prompt_en: PROMPT,
    durability: 'one of "default", "fsync"',
  },
);

const compressionSchema = section(
  {
    token_threshold: wholeAtLeast(1),
    keep_recent: wholeAtLeast(0),
    min_to_compress: wholeAtLeast(1),
  },
  { token_threshold: TOKENS, keep_recent: WHOLE_0, min_to_compress: WHOLE_1 },
);

const inheritanceSchema = section(
  {
    enabled: bool(),
    max_summary_tokens: wholeAtLeast(1),
    expiry_days: wholeAtLeast(1),
  },
  { enabled: BOOL, max_summary_tokens: TOKENS, expiry_days: DAYS },
);

export const contextSchema = section(
  { base_dir: text(), compression: compressionSchema, inheritance: inheritanceSchema },
  {
    base_dir: DIR,
    compression: describeSection(compressionSchema),
    inheritance: describeSection(inheritanceSchema),
  },
);

export const LLM_PROVIDERS = ['openai', 'ollama', 'lmstudio'] as const;

const openaiSchema = section(
  {
    model: text(),
    context_length: wholeAtLeast(1),
    api_key: z.string(),
    base_url: httpUrl(),
    max_output_tokens: wholeAtLeast(1),
  },
  {
    model: MODEL,
    context_length: TOKENS,
    api_key: API_KEY,
    base_url: URL_TEXT,
    max_output_tokens: TOKENS,
  },
);

const ollamaSchema = section(
  { model: text(), context_length: wholeAtLeast(1), base_url: httpUrl() },
  { model: MODEL, context_length: TOKENS, base_url: URL_TEXT },
);

const lmstudioSchema = section(
  { model: text(), context_length: wholeAtLeast(1), base_url: httpUrl(), api_key: z.string() },
  { model: MODEL, context_length: TOKENS, base_url: URL_TEXT, api_key: API_KEY },
);

export const llmSchema = section(
  {
    provider: z.enum(LLM_PROVIDERS),
    openai: openaiSchema,
    ollama: ollamaSchema,
    lmstudio: lmstudioSchema,
  },
  {
    provider: `one of ${LLM_PROVIDERS.map((p) => `"${p}"`).join(', ')}`,
    openai: describeSection(openaiSchema),
    ollama: describeSection(ollamaSchema),
    lmstudio: describeSection(lmstudioSchema),
  },
);

/**
 * A variable name `tools.env_passthrough` may pass to the commands tools run: a plain name,
 * and none that looks like a credential (the allow-list exists to keep those out; a command
 * the model writes can send anything it sees anywhere).
 */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SECRET_WORDS = new Set([
  'KEY',
  'APIKEY',
  'TOKEN',
  'TOKENS',
  'SECRET',
  'SECRETS',
  'PASSWORD',
  'PASSWD',
  'CREDENTIAL',
  'CREDENTIALS',
  'AUTH',
]);
export function looksLikeSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  if (/APIKEY|API_KEY|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_KEY/.test(upper)) return true;
  return upper.split('_').some((word) => SECRET_WORDS.has(word));
}
const ENV_PASSTHROUGH_ITEM =
  'an environment variable name (letters, digits and _, not starting with a digit) that does not look like a credential (no KEY, TOKEN, SECRET, PASSWORD, CREDENTIAL or AUTH in it)';

export const toolsSchema = section(
  {
    run_command: bool(),
    env_passthrough: list(
      z.string().refine((name) => ENV_NAME.test(name) && !looksLikeSecretName(name)),
      ENV_PASSTHROUGH_ITEM,
      { distinct: 'variable' },
    ),
  },
  {
    run_command: BOOL,
    env_passthrough: `a list of names, each ${ENV_PASSTHROUGH_ITEM}`,
  },
);

const ratio = () => numeric(z.number().gt(0).lte(1));
const CHARS_1 = 'a whole number of characters ≥ 1';

/** Seed 003's HISTORY_CONFIG, in snake_case. */
const importanceWindowSchema = section(
  {
    max_messages: wholeAtLeast(1),
    recent_ratio: ratio(),
    max_text_chars: wholeAtLeast(1),
    max_data_chars: wholeAtLeast(1),
    max_ui_nodes: wholeAtLeast(1),
    max_ui_depth: wholeAtLeast(0),
    max_ui_children: wholeAtLeast(0),
    noisy_fields: list(text(), 'a field name (a non-empty text)'),
  },
  {
    max_messages: 'a whole number of messages ≥ 1',
    recent_ratio: `${RATIO_ALLOWED} (the share of the newest messages always kept)`,
    max_text_chars: CHARS_1,
    max_data_chars: CHARS_1,
    max_ui_nodes: 'a whole number of nodes ≥ 1',
    max_ui_depth: 'a whole number of levels ≥ 0',
    max_ui_children: 'a whole number of children ≥ 0',
    noisy_fields: 'a list of field names dropped from JSON outputs, e.g. [description, help]',
  },
);

/** Seed 004's thresholds and constants. */
const condenseSchema = section(
  {
    threshold_percent: numeric(z.number().int().min(5).max(100)),
    keep_messages: wholeAtLeast(1),
    token_buffer_ratio: numeric(z.number().min(0).lt(1)),
  },
  {
    threshold_percent: 'a whole number from 5 to 100 (percent of the context window)',
    keep_messages: 'a whole number of messages ≥ 1',
    token_buffer_ratio: 'a number ≥ 0 and less than 1 (the share of the context window kept free)',
  },
);

const truncateSchema = section(
  { fraction: numeric(z.number().gt(0).lt(1)) },
  { fraction: 'a number greater than 0 and less than 1 (the share of messages hidden)' },
);

const observationMaskSchema = section(
  { keep_turns: wholeAtLeast(0) },
  { keep_turns: 'a whole number of turns ≥ 0 (tool outputs of the newest turns stay whole)' },
);

/** The fact ledger of summaries (DESIGN.md §10). */
const factLedgerSchema = section(
  {
    max_tokens: wholeAtLeast(0),
    share: ratio(),
    context_share: numeric(z.number().min(0).lte(1)),
  },
  {
    max_tokens: 'a whole number of tokens ≥ 0 (0 = summaries carry no fact ledger)',
    share: `${RATIO_ALLOWED} (the share of the replaced messages' tokens the ledger may take)`,
    context_share:
      "a number from 0 to 1 (the share of the context before that a summary's whole new context may take; 0 = no cap)",
  },
);

const STRATEGY_LIST = STRATEGY_NAMES.map((name) => `"${name}"`).join(', ');
const DIRECTIVE = 'a non-empty text';

/** Seed 002's CompactionConfig with its own camelCase keys, plus our strategy sections. */
export const compactionSchema = section(
  {
    enabled: bool(),
    auto: bool(),
    thresholdRatio: ratio(),
    model: text(),
    summaryPrompt: text(),
    summaryDirectives: list(text(), DIRECTIVE),
    retainPrompt: text(),
    retainDirectives: list(text(), DIRECTIVE),
    retainLastTurns: wholeAtLeast(0),
    pipeline: list(z.enum(STRATEGY_NAMES), `one of ${STRATEGY_LIST}`, {
      nonEmpty: true,
      distinct: 'strategy',
    }),
    importance_window: importanceWindowSchema,
    condense: condenseSchema,
    truncate: truncateSchema,
    observation_mask: observationMaskSchema,
    fact_ledger: factLedgerSchema,
  },
  {
    enabled: BOOL,
    auto: BOOL,
    thresholdRatio: RATIO_ALLOWED,
    model: `${MODEL} (empty = the task's own model)`,
    summaryPrompt: 'a non-empty text (empty = the built-in prompt)',
    summaryDirectives: 'a list of texts, each appended to the summary prompt as a bullet',
    retainPrompt: 'a non-empty text (empty = the built-in retain instruction)',
    retainDirectives: 'a list of texts, each appended to the retain instruction as a bullet',
    retainLastTurns: WHOLE_0,
    pipeline: `a non-empty list of strategies, each one of ${STRATEGY_LIST}`,
    importance_window: describeSection(importanceWindowSchema),
    condense: describeSection(condenseSchema),
    truncate: describeSection(truncateSchema),
    observation_mask: describeSection(observationMaskSchema),
    fact_ledger: describeSection(factLedgerSchema),
  },
);

/** Seed 002's ToolOutputCacheConfig with its own camelCase keys. */
export const toolOutputCacheSchema = section(
  {
    enabled: bool(),
    contextBudgetTokens: wholeAtLeast(1000),
    maxMessageBytes: wholeAtLeast(1024),
    maxLineLength: wholeAtLeast(80),
  },
  {
    enabled: BOOL,
    contextBudgetTokens:
      'a whole number of tokens ≥ 1000 (empty = 25 % of the context window, kept between 20000 and 60000)',
    maxMessageBytes: 'a whole number of bytes ≥ 1024',
    maxLineLength: 'a whole number of characters ≥ 80',
  },
);

/** The top-level keys this app owns; every other top-level key belongs to someone else. */
export const SOURCE_SECTIONS = {
  context_storage: contextStorageSchema,
  context: contextSchema,
  llm: llmSchema,
  tools: toolsSchema,
  compaction: compactionSchema,
  tool_output_cache: toolOutputCacheSchema,
} as const;

export type SourceSectionName = keyof typeof SOURCE_SECTIONS;

export type ContextStorageSource = z.output<typeof contextStorageSchema>;
export type ContextSource = z.output<typeof contextSchema>;
export type LlmSource = z.output<typeof llmSchema>;
export type ToolsSource = z.output<typeof toolsSchema>;
export type CompactionSource = z.output<typeof compactionSchema>;
export type ToolOutputCacheSource = z.output<typeof toolOutputCacheSchema>;
