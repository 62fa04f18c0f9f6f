import { z } from 'zod';

/**
 * Schemas for the config sections exactly as users write them (seed 000's
 * `context_storage` and `llm`, seed 001's `context`, our `tools`). Validating the user's
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

export function sectionKeys(schema: z.ZodType): string[] {
  return Object.keys(sections.get(schema)?.fields ?? {});
}

/** The section schema at `path` below `schema`, if `path` names a section. */
export function sectionAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let current: z.ZodType = schema;
  for (const segment of path) {
    const child = sections.get(current)?.fields[String(segment)];
    if (child === undefined) return undefined;
    current = child;
  }
  return sections.has(current) ? current : undefined;
}

/** What the field at `path` (below `schema`) accepts, for error messages. */
export function allowedAt(schema: z.ZodType, path: readonly PropertyKey[]): string {
  const parent = path.length === 0 ? undefined : sectionAt(schema, path.slice(0, -1));
  const info = parent === undefined ? undefined : sections.get(parent);
  const allowed = info?.allowed[String(path[path.length - 1])];
  if (allowed !== undefined) return allowed;
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

export const toolsSchema = section({ run_command: bool() }, { run_command: BOOL });

/** The top-level keys this app owns; every other top-level key belongs to someone else. */
export const SOURCE_SECTIONS = {
  context_storage: contextStorageSchema,
  context: contextSchema,
  llm: llmSchema,
  tools: toolsSchema,
} as const;

export type SourceSectionName = keyof typeof SOURCE_SECTIONS;

export type ContextStorageSource = z.output<typeof contextStorageSchema>;
export type ContextSource = z.output<typeof contextSchema>;
export type LlmSource = z.output<typeof llmSchema>;
export type ToolsSource = z.output<typeof toolsSchema>;
