import type { MessageRecord, TaskRow, TokenUsage } from '../../shared/task-types';
import type { FinalStats, StatIncrements, TaskIndex } from '../db/task-index';
import { MessageStore, type NewMessage } from './message-store';
import { SummaryStore, type NewSummary } from './summary-store';
import { ToolStore, type NewToolCall } from './tool-store';
import { PlanningStore } from './planning-store';
import { ToolOutputStore } from './tool-output-store';
import { writeFinalSummary } from './final-summary';
import { runAll } from './run-all';
import { CwbError } from '../errors';

export type TaskHook = (task: TaskContextManager) => void | Promise<void>;
/** Produces final_summary.txt when a task completes (an LLM summary, or the offline digest). */
export type FinalSummarizer = (task: TaskContextManager) => string | Promise<string>;

/** What the manager needs from the store that owns it: the table and folder moves. */
export interface TaskHost {
  readonly repo: TaskIndex;
  transition(
    uuid: string,
    status: 'paused' | 'completed' | 'failed',
    extra?: { error_message?: string; stats?: FinalStats },
  ): string;
}

export interface HookFailure {
  hook: string;
  error: string;
}

/**
 * One task's context (seed 000 §4.1, seed 001 §3): its stores, its statistics in tasks.db,
 * its hooks, and the moves between running/, paused/ and completed/. Only the process that
 * drives the task holds one of these for writing.
 */
export class TaskContextManager {
  readonly messages: MessageStore;
  readonly summaries: SummaryStore;
  readonly tools: ToolStore;
  readonly planning: PlanningStore;
  readonly toolOutputs: ToolOutputStore;
  private readonly completionHooks = new Map<string, TaskHook>();
  private readonly stopHooks = new Map<string, TaskHook>();
  private closed = false;
  /**
   * Message and tool-call counts not yet in tasks.db. A transaction per message was 2 % of a
   * task's time (issue #17), so they are written once per step: with the step's LLM call,
   * whenever the row is read, and when the task ends. A crash loses at most one step of
   * increments, which reopening the task corrects from the files (recovery.ts).
   */
  private pending = { messages: 0, tool_calls: 0 };

  constructor(
    private readonly host: TaskHost,
    readonly uuid: string,
    private currentDir: string,
    private readonly options: {
      fsync: boolean;
      summarizer: FinalSummarizer;
      /** summaries, tools and planning made at their first record, not at open (RecordLog). */
      lazyRecords?: boolean;
      /**
       * Messages and tool records held in memory and written together, at the latest at
       * close(): for a writer that appends a whole session before anyone reads it (the
       * sources' sync, which commits only after closing its tasks).
       */
      batched?: boolean;
    },
  ) {
    const lazy = options.lazyRecords ?? false;
    const batched = options.batched ?? false;
    this.messages = MessageStore.open(currentDir, { fsync: options.fsync, batched });
    this.summaries = new SummaryStore(currentDir, options.fsync, lazy);
    this.tools = new ToolStore(currentDir, options.fsync, lazy, batched);
    this.planning = new PlanningStore(currentDir, options.fsync, lazy);
    this.toolOutputs = new ToolOutputStore(currentDir);
  }

  /** The task folder now (it moves when the status changes). */
  get dir(): string {
    return this.currentDir;
  }

  row(): TaskRow {
    this.flushStats();
    return this.host.repo.require(this.uuid);
  }

  addMessage(message: NewMessage): MessageRecord {
    this.assertOpen();
    const record = this.messages.append(message);
    this.pending.messages++;
    return record;
  }

  /** After each LLM call (seed 000 §6.2 g): one call, and the provider's token usage when known. */
  recordLlmCall(usage?: Partial<TokenUsage>): void {
    this.assertOpen();
    this.flushStats({ llm_calls: 1, ...(usage && { usage }) });
  }

  recordToolCall(call: NewToolCall): number {
    this.assertOpen();
    const record = this.tools.add(call);
    this.pending.tool_calls++;
    return record.seq;
  }

  recordSummary(summary: NewSummary): number {
    this.assertOpen();
    const record = this.summaries.add(summary);
    this.flushStats({ summaries: 1, compressions: 1 });
    return record.id;
  }

  /** Writes the counts batched since the last write (with `extra` in the same update). */
  flushStats(extra: StatIncrements = {}): void {
    // The step's offset-index entries go out with its counters.
    this.messages.flushIndex();
    const { messages, tool_calls } = this.pending;
    if (messages === 0 && tool_calls === 0 && Object.keys(extra).length === 0) return;
    this.pending = { messages: 0, tool_calls: 0 };
    this.host.repo.addStats(this.uuid, {
      ...extra,
      ...(messages > 0 && { messages }),
      ...(tool_calls > 0 && { tool_calls }),
    });
  }

  registerCompletionHook(name: string, hook: TaskHook): void {
    this.completionHooks.set(name, hook);
  }

  registerStopHook(name: string, hook: TaskHook): void {
    this.stopHooks.set(name, hook);
  }

  /** Figures recorded when a task ends (seed 001 §3.18), taken from the files themselves. */
  statistics(): FinalStats {
    return {
      total_messages: this.messages.count,
      total_summaries: this.summaries.count(),
      total_tool_calls: this.tools.count(),
      final_token_count: this.messages.currentTokenCount(),
      final_message_count: this.messages.currentCount(),
    };
  }

  /**
   * seed 001 stop(): stop hooks, statistics, status paused, running/ → paused/. `errorMessage`
   * says why a task paused itself (a full disk), shown until it is resumed.
   */
  async stop(errorMessage?: string): Promise<HookFailure[]> {
    this.assertOpen();
    const failures = await runHooks(this.stopHooks, this);
    this.finish('paused', errorMessage);
    return failures;
  }

  /** seed 001 complete(): completion hooks, final_summary.txt, statistics, running/ → completed/. */
  async complete(): Promise<HookFailure[]> {
    this.assertOpen();
    const failures = await runHooks(this.completionHooks, this);
    try {
      writeFinalSummary(this.currentDir, await this.options.summarizer(this));
    } catch (err) {
      // seed 001 §3.19: a failed final summary is reported and the task still completes.
      failures.push({ hook: 'final-summary', error: (err as Error).message });
    }
    this.finish('completed');
    return failures;
  }

  /** seed 001 fail(): status failed with the message, running/ → completed/. */
  fail(errorMessage: string): void {
    this.assertOpen();
    this.finish('failed', errorMessage);
  }

  close(): void {
    if (this.closed) return;
    try {
      this.flushStats();
    } catch {
      // tasks.db is unwritable (closed, full): the counts are taken from the files when the
      // task is next opened, and closing the files matters more.
    }
    this.closed = true;
    // Every file is closed; a batched store's failure to write what it held is thrown after.
    runAll([this.messages, this.summaries, this.tools, this.planning].map((s) => () => s.close()));
  }

  private finish(status: 'paused' | 'completed' | 'failed', errorMessage?: string): void {
    this.flushStats();
    const stats = this.statistics();
    // Files are closed before the folder moves (Windows cannot rename a folder with open files).
    this.close();
    this.currentDir = this.host.transition(this.uuid, status, {
      stats,
      ...(errorMessage !== undefined && { error_message: errorMessage }),
    });
  }

  private assertOpen(): void {
    if (this.closed)
      throw new CwbError('conflict', `task ${this.uuid} is no longer open for writing`);
  }
}

async function runHooks(
  hooks: Map<string, TaskHook>,
  task: TaskContextManager,
): Promise<HookFailure[]> {
  const failures: HookFailure[] = [];
  for (const [name, hook] of hooks) {
    try {
      await hook(task);
    } catch (err) {
      failures.push({ hook: name, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return failures;
}
