import { z } from 'zod';
import type { CostFigure, TaskCost } from '../cost-types';
import { TASK_STATUSES, type TaskRow, type TaskStatus } from '../task-types';
import { isoDateSchema, taskRefInput } from './common-schemas';
import { operation } from './operation';

/** Columns the task table can sort on (answered by the task index; core's repositories use this list). */
export const TASK_SORT_COLUMNS = [
  'created_at',
  'updated_at',
  'completed_at',
  'started_at',
  'status',
  'title',
  'repo',
  'repository',
  'task_type',
  'task_id',
  'user',
  'model',
  /** tasks.agent's value (claude-code, codex, …; '' for this app's own tasks first). */
  'agent',
  /** The host holding the task (a fleet's PostgreSQL index; tasks.db: the host that ran it). */
  'host',
  'total_messages',
  'total_tokens',
  'compression_count',
  'tool_call_count',
  'llm_call_count',
  /** Computed from the token counters and the price table (unknown costs sort last). */
  'cost',
] as const;
export type TaskSortColumn = (typeof TASK_SORT_COLUMNS)[number];

export const MAX_TASK_PAGE = 1000;
const text = z.string().min(1).max(500);

export const queryTasksInput = z.strictObject({
  status: z.array(z.enum(TASK_STATUSES)).max(TASK_STATUSES.length).optional(),
  repo: text.optional(),
  user: text.optional(),
  model: text.optional(),
  /** The agent that wrote the task (tasks.agent: claude-code, codex, …); '' = tasks this app ran. */
  agent: z.string().max(500).optional(),
  /** The host holding the task (TaskRow.host). */
  host: text.optional(),
  /** Matches title or prompt (substring, case-insensitive for ASCII). */
  search: text.optional(),
  createdFrom: isoDateSchema.optional(),
  createdTo: isoDateSchema.optional(),
  sort: z.enum(TASK_SORT_COLUMNS).default('created_at'),
  order: z.enum(['asc', 'desc']).default('desc'),
  limit: z.number().int().min(0).max(MAX_TASK_PAGE).default(100),
  offset: z.number().int().min(0).default(0),
  /** Also count tasks per status and list the distinct repos, users and models. */
  facets: z.boolean().default(false),
});

/** A row of the task table: the full row minus the bulky prompt and metadata. */
export type TaskListRow = Omit<TaskRow, 'prompt' | 'metadata'> & {
  /** The first 200 characters of the prompt. */
  prompt_preview: string | null;
  /** The agent's own LLM calls priced by the app's price table (compactions: see TaskDetail). */
  cost: CostFigure;
};

/** The cost of every task matching the filters (all pages): known costs added, unknown ones counted. */
export interface TasksCostTotal {
  usd: number;
  /** Matching tasks whose cost is unknown (not in usd). */
  unknown: number;
  tasks: number;
}

export interface FacetValue {
  value: string;
  count: number;
}

/**
 * Counts for the filter controls. Status counts apply every filter but the status one (so
 * each status chip says what choosing it would show); the value lists cover all tasks.
 */
export interface TaskFacets {
  status: Record<TaskStatus, number>;
  repos: FacetValue[];
  users: FacetValue[];
  models: FacetValue[];
  /** Agents (tasks.agent; '' = this app) with their task counts. */
  agents: FacetValue[];
  /** Hosts (TaskRow.host) with their task counts: more than one only in a fleet. */
  hosts: FacetValue[];
  /** The total cost of the tasks matching every filter. */
  cost?: TasksCostTotal;
}

export interface TasksPage {
  rows: TaskListRow[];
  /** Tasks matching the filters (all pages). */
  total: number;
  offset: number;
  limit: number;
  facets?: TaskFacets;
}

export interface TaskDetail {
  task: TaskRow;
  /** metadata.json as written when the task was created (null when missing or unreadable). */
  metadata: Record<string, unknown> | null;
  finalSummary: string | null;
  /** Lines in current.jsonl: the messages the model sees now. */
  currentMessages: number;
  compactions: { total: number; active: number };
  /** The task's process runs under this host (its live events arrive here). */
  supervised: boolean;
  /** Per model and per compaction, priced by the app's table and config.yaml's `pricing:`. */
  cost: TaskCost;
}

export const tasksOperations = {
  queryTasks: operation(queryTasksInput).returns<TasksPage>(),
  getTask: operation(taskRefInput).returns<TaskDetail>(),
};
