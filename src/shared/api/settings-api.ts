import { z } from 'zod';
import { COMPACTION_STRATEGIES } from './compaction-api';
import { noInput } from './common-schemas';
import { operation } from './operation';

/**
 * Settings as the UI sees them: config.yaml in its one canonical shape (whatever mix of
 * the seeds' sections the file uses). Values are loosely typed here; the engine's own
 * schema checks the merged result and names the field that is wrong. Core proves at
 * compile time that its AppConfig and this shape agree.
 */

const provider = z.enum(['openai', 'ollama', 'lmstudio']);
const count = z.number().int();
const prompt = z.string().max(100_000);
const model = z.string().max(200).nullable();
const url = z.string().max(2000);
const list = z.array(z.string().max(10_000)).max(100);

const storage = z.strictObject({
  enabled: z.boolean(),
  compression_threshold: z.number(),
  token_threshold: count.nullable(),
  keep_recent_messages: count,
  min_to_compress: count,
  cleanup_days: count,
  summary_prompt: prompt,
  summary_prompt_en: prompt,
  durability: z.enum(['default', 'fsync']),
});
const inheritance = z.strictObject({
  enabled: z.boolean(),
  max_summary_tokens: count,
  expiry_days: count,
});
const openai = z.strictObject({
  model,
  context_length: count.optional(),
  api_key: z.string().max(500).optional(),
  base_url: url,
  max_output_tokens: count.optional(),
});
const ollama = z.strictObject({ model, context_length: count.optional(), base_url: url });
const lmstudio = z.strictObject({
  model,
  context_length: count.optional(),
  base_url: url,
  api_key: z.string().max(500).optional(),
});
const importanceWindow = z.strictObject({
  max_messages: count,
  recent_ratio: z.number(),
  max_text_chars: count,
  max_data_chars: count,
  max_ui_nodes: count,
  max_ui_depth: count,
  max_ui_children: count,
  noisy_fields: list,
});
const condense = z.strictObject({
  threshold_percent: count,
  keep_messages: count,
  token_buffer_ratio: z.number(),
});
const truncate = z.strictObject({ fraction: z.number() });
const observationMask = z.strictObject({ keep_turns: count });
const factLedger = z.strictObject({
  max_tokens: count,
  share: z.number(),
  context_share: z.number(),
});
const compactionFields = {
  enabled: z.boolean(),
  auto: z.boolean(),
  threshold_ratio: z.number(),
  model,
  summary_prompt: prompt.nullable(),
  summary_directives: list,
  retain_prompt: prompt.nullable(),
  retain_directives: list,
  retain_last_turns: count,
  pipeline: z.array(z.enum(COMPACTION_STRATEGIES)).max(COMPACTION_STRATEGIES.length),
};
const toolOutputCache = z.strictObject({
  enabled: z.boolean(),
  context_budget_tokens: count.nullable(),
  max_message_bytes: count,
  max_line_length: count,
});

const tools = z.strictObject({
  run_command: z.boolean(),
  /** Names only; the config loader refuses one that looks like a credential. */
  env_passthrough: z.array(z.string().max(200)).max(1000),
});

export const settingsSchema = z.strictObject({
  contexts_dir: z.string().max(4096).nullable(),
  storage,
  inheritance,
  llm: z.strictObject({ provider, openai, ollama, lmstudio }),
  tools,
  compaction: z.strictObject({
    ...compactionFields,
    importance_window: importanceWindow,
    condense,
    truncate,
    observation_mask: observationMask,
    fact_ledger: factLedger,
  }),
  tool_output_cache: toolOutputCache,
});

export type WorkbenchSettings = z.output<typeof settingsSchema>;

/** The value an API key shows as, and what to send back to keep the key as it is. */
export const REDACTED_SECRET = '***';

/**
 * An API key in a patch: a `${VAR}` reference (the key stays in the environment),
 * "***" (keep what the file has), or null (remove it). A key typed in clear is refused:
 * keys are never written to config.yaml by the workbench.
 */
const apiKeyPatch = z
  .string()
  .max(500)
  .refine(
    (v) => v === REDACTED_SECRET || /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(v),
    'an API key is written as an environment reference like "${OPENAI_API_KEY}" ("***" keeps the current one)',
  )
  .nullable();
const optionalCount = count.nullable();

/** Only what changes; `null` removes an optional value (the default applies again). */
export const settingsPatchSchema = z.strictObject({
  // Written into config.yaml as it is: a NUL byte would make every later start fail.
  contexts_dir: z
    .string()
    .max(4096)
    .refine((p) => !p.includes('\0'), 'a path cannot contain a NUL byte')
    .nullable()
    .optional(),
  storage: storage.partial().optional(),
  inheritance: inheritance.partial().optional(),
  llm: z
    .strictObject({
      provider,
      openai: openai
        .extend({
          context_length: optionalCount,
          api_key: apiKeyPatch,
          max_output_tokens: optionalCount,
        })
        .partial(),
      ollama: ollama.extend({ context_length: optionalCount }).partial(),
      lmstudio: lmstudio.extend({ context_length: optionalCount, api_key: apiKeyPatch }).partial(),
    })
    .partial()
    .optional(),
  tools: tools.partial().optional(),
  compaction: z
    .strictObject({
      ...compactionFields,
      importance_window: importanceWindow.partial(),
      condense: condense.partial(),
      truncate: truncate.partial(),
      observation_mask: observationMask.partial(),
      fact_ledger: factLedger.partial(),
    })
    .partial()
    .optional(),
  tool_output_cache: toolOutputCache.partial().optional(),
});
export type SettingsPatch = z.input<typeof settingsPatchSchema>;

export interface SettingsView {
  /** The config file read, or null when none exists yet (defaults apply). */
  file: string | null;
  /** Where a settings change is written (the file read, or the default location). */
  target: string;
  /** The effective settings; API keys and values from the environment show as "***". */
  settings: WorkbenchSettings;
  /** Settings whose value comes from an environment reference, as written (e.g. `llm.openai.api_key` → "${OPENAI_API_KEY}"). */
  references: Record<string, string>;
  /** Environment variables overriding the file right now (seed 000 §9.2). */
  envOverrides: string[];
  /** The contexts folder this host uses (a change of contexts_dir applies after a restart). */
  contextsRoot: string;
}

export interface SettingsUpdate extends SettingsView {
  /** Changed settings whose effective value still differs (an environment override, a seed 001 default). */
  notApplied: { key: string; reason: string }[];
  restartRequired: boolean;
}

export const updateSettingsInput = z.strictObject({ patch: settingsPatchSchema });

export const settingsOperations = {
  getSettings: operation(noInput).returns<SettingsView>(),
  updateSettings: operation(updateSettingsInput).returns<SettingsUpdate>(),
};
