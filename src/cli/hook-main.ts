import fs from 'node:fs';
import {
  HOOK_AGENTS,
  HOOK_DEFAULTS,
  HookRefusal,
  runCompactionHook,
  type HookAgent,
} from '../core/hooks/compaction-hook';
import { HookTimeout } from '../core/hooks/compacted-span';
import { logHookLine } from '../core/hooks/hook-log';

/**
 * `cwb hook <agent> [--max-tokens N] [--timeout-ms N]`, run by the agent itself after each
 * compaction. bin/cwb.js loads this entry (out/main/hook.js) instead of the whole CLI: it
 * imports only the transcript readers and the fact extractor, so a run costs tens of
 * milliseconds on top of Node's start. Whatever happens it exits 0; it prints only a valid
 * answer, and says in the hooks' log why it printed nothing.
 */
export function hookMain(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): number {
  const agent = argv[0] as HookAgent;
  const tag = `hook ${String(argv[0] ?? '-')}`;
  try {
    if (!HOOK_AGENTS.includes(agent)) {
      throw new HookRefusal(`unknown agent (expected ${HOOK_AGENTS.join(' or ')})`);
    }
    const options = {
      agent,
      maxTokens: numberFlag(argv, '--max-tokens', env.CWB_HOOK_MAX_TOKENS, HOOK_DEFAULTS.maxTokens),
      timeoutMs: numberFlag(argv, '--timeout-ms', env.CWB_HOOK_TIMEOUT_MS, HOOK_DEFAULTS.timeoutMs),
      maxTranscriptBytes: HOOK_DEFAULTS.maxTranscriptBytes,
    };
    const raw = fs.readFileSync(0, 'utf8');
    const outcome = runCompactionHook(raw, options);
    if (outcome.kind === 'answer') {
      fs.writeSync(1, `${outcome.json}\n`);
      logHookLine(
        `${tag}: ${outcome.shown} of ${outcome.dropped} dropped facts injected (${outcome.tokens} tokens)`,
        env,
      );
    } else if (outcome.kind === 'nothing') {
      logHookLine(`${tag}: nothing injected: ${outcome.reason}`, env);
    }
  } catch (err) {
    const reason =
      err instanceof HookRefusal || err instanceof HookTimeout
        ? err.message
        : `internal error: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`;
    logHookLine(`${tag}: nothing injected: ${reason.slice(0, 400)}`, env);
  }
  return 0;
}

function numberFlag(
  argv: readonly string[],
  name: string,
  fromEnv: string | undefined,
  fallback: number,
): number {
  const i = argv.indexOf(name);
  const raw = i >= 0 ? argv[i + 1] : fromEnv;
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new HookRefusal(`${name} must be a positive integer`);
  return n;
}
