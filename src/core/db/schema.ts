/**
 * tasks.db schema: the union of seed 000 §2.2 and seed 001 §12.1, plus what the workbench
 * needs (title/prompt, workdir, parent_uuid, split token counters).
 *
 * Migrations only move forward. Each entry upgrades the database from version `index` to
 * `index + 1`; PRAGMA user_version records where a database stands. Never edit a migration
 * that has shipped: add a new one.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE tasks (
    uuid TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    title TEXT,
    prompt TEXT,
    workdir TEXT,
    parent_uuid TEXT,
    task_source TEXT NOT NULL DEFAULT '',
    owner TEXT NOT NULL DEFAULT '',
    repo TEXT NOT NULL DEFAULT '',
    task_type TEXT NOT NULL DEFAULT '',
    task_id TEXT NOT NULL DEFAULT '',
    -- seed 001 names; derived so the two spellings can never disagree
    repository TEXT GENERATED ALWAYS AS (CASE WHEN owner <> '' THEN owner || '/' || repo ELSE repo END) VIRTUAL,
    task_identifier TEXT GENERATED ALWAYS AS (task_id) VIRTUAL,
    user TEXT,
    created_at TEXT NOT NULL,
    started_at TEXT,
    updated_at TEXT NOT NULL,
    completed_at TEXT,
    process_id INTEGER,
    hostname TEXT,
    llm_provider TEXT,
    model TEXT,
    context_length INTEGER,
    llm_call_count INTEGER NOT NULL DEFAULT 0,
    tool_call_count INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cache_creation_tokens INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0,
    total_tokens INTEGER NOT NULL DEFAULT 0,
    compression_count INTEGER NOT NULL DEFAULT 0,
    total_messages INTEGER NOT NULL DEFAULT 0,
    total_summaries INTEGER NOT NULL DEFAULT 0,
    total_tool_calls INTEGER NOT NULL DEFAULT 0,
    final_token_count INTEGER,
    final_message_count INTEGER,
    error_message TEXT,
    metadata TEXT
  );
  CREATE INDEX idx_tasks_status ON tasks(status);
  CREATE INDEX idx_tasks_created_at ON tasks(created_at);
  CREATE INDEX idx_tasks_updated_at ON tasks(updated_at);
  CREATE INDEX idx_tasks_completed_at ON tasks(completed_at);
  CREATE INDEX idx_tasks_user ON tasks(user);
  CREATE INDEX idx_tasks_repo ON tasks(repo);
  CREATE INDEX idx_tasks_repository ON tasks(repository);
  CREATE INDEX idx_tasks_task_type ON tasks(task_type);
  CREATE INDEX idx_tasks_key ON tasks(task_source, owner, repo, task_type, task_id, user);
  `,
  // v2: a request from another process to a running task (pause, stop, compact), read by
  // the task process between steps. Works for detached tasks and across hosts alike.
  `
  ALTER TABLE tasks ADD COLUMN control TEXT;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;
