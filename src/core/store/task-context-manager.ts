import type { MessageRecord, TaskRow, TokenUsage } from '../../shared/task-types';
import type { FinalStats, TaskIndex } from '../db/task-index';
import { MessageStore, type NewMessage } from './message-store';
import { SummaryStore, type NewSummary } from './summary-store';
import { ToolStore, type NewToolCall } from './tool-store';
import { PlanningStore } from './planning-store';
import { ToolOutputStore } from './tool-output-store';
import { writeFinalSummary } from './final-summary';
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

  constructor(
    private readonly host: TaskHost,
    readonly uuid: string,
    private currentDir: string,
    private readonly options: { fsync: boolean; summarizer: FinalSummarizer },
  ) {
    this.messages = MessageStore.open(currentDir, { fsync: options.fsync });
    this.summaries = new SummaryStore(currentDir, options.fsync);
    this.tools = new ToolStore(currentDir, options.fsync);
    this.planning = new PlanningStore(currentDir, options.fsync);
    this.toolOutputs = new ToolOutputStore(currentDir);
  }

  /** The task folder now (it moves when the status changes). */
  get dir(): string {
    return this.currentDir;
  }

  row(): TaskRow {
    return this.host.repo.require(this.uuid);
  }

  addMessage(message: NewMessage): MessageRecord {
    this.assertOpen();
    const record = this.messages.append(message);
    this.host.repo.addStats(this.uuid, { messages: 1 });
    return record;
  }

  /** After each LLM call (seed 000 §6.2 g): one call, and the provider's token usage when known. */
  recordLlmCall(usage?: Partial<TokenUsage>): void {
    this.assertOpen();
    this.host.repo.addStats(this.uuid, { llm_calls: 1, ...(usage && { usage }) });
  }

  recordToolCall(call: NewToolCall): number {
    this.assertOpen();
    const record = this.tools.add(call);
    this.host.repo.addStats(this.uuid, { tool_calls: 1 });
    return record.seq;
  }

  recordSummary(summary: NewSummary): number {
    this.assertOpen();
    const record = this.summaries.add(summary);
    this.host.repo.addStats(this.uuid, { summaries: 1, compressions: 1 });
    return record.id;
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
    this.closed = true;
    this.messages.close();
    this.summaries.close();
    this.tools.close();
    this.planning.close();
  }

  private finish(status: 'paused' | 'completed' | 'failed', errorMessage?: string): void {
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
