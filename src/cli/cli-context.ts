import { loadConfig } from '../core/config/load-config';
import type { AppConfig } from '../core/config/app-config';
import { resolveContextsRoot } from '../core/store/contexts-layout';
import { ContextStore } from '../core/store/context-store';
import { processSecrets } from '../core/llm/process-secrets';
import { rememberSecrets } from './cli-secrets';
import { readIndexSetting } from '../core/config/index-setting';
import { INDEX_URL_ENV, resolveIndexUrl } from '../core/db/open-task-index';
import { PriceBook } from '../core/cost/price-book';

export interface GlobalOptions {
  contexts?: string;
  config?: string;
  index?: string;
}

export interface CliContext {
  config: AppConfig;
  configFile: string | null;
  root: string;
  /** config.yaml's `pricing:` over the shipped price table. */
  prices: PriceBook;
}

/** Config and contexts root as every command sees them: flags, then environment, then config, then defaults. */
export function resolveContext(
  options: GlobalOptions,
  env: NodeJS.ProcessEnv = process.env,
): CliContext {
  const { config, file, pricing } = loadConfig({ file: options.config ?? null, env });
  rememberSecrets(processSecrets(config, env));
  // The index goes into the environment: every process this one starts (task processes,
  // detached runs) then writes to the same index.
  const index = resolveIndexUrl(options.index, env, readIndexSetting(file, env));
  if (index) env[INDEX_URL_ENV] = index;
  return {
    config,
    configFile: file,
    prices: new PriceBook(pricing ?? {}),
    root: resolveContextsRoot(options.contexts, env, config.contexts_dir),
  };
}

/**
 * Runs recovery on the contexts folder (src/core/store/recovery.ts) by opening the store and
 * closing it: what a command does before it starts a task process, which leaves recovery to
 * its host.
 */
export async function recoverContexts(ctx: CliContext): Promise<void> {
  await withStore(ctx, () => undefined);
}

/** Opens the store (with recovery) for the length of `fn`. */
export async function withStore<T>(
  ctx: CliContext,
  fn: (store: ContextStore) => T | Promise<T>,
): Promise<T> {
  const store = ContextStore.open(ctx.root, { fsync: ctx.config.storage.durability === 'fsync' });
  try {
    return await fn(store);
  } finally {
    store.close();
  }
}
