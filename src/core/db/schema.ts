import { SOURCE_FILES_HELD, SOURCE_FILES_TABLE } from './source-files-schema';

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
  // v3: the task table stays fast at 100,000 tasks (docs/benchmarks.md group 5).
  // - An index for every sort column the UI and CLI offer. Listings break ties on rowid,
  //   which every index already ends with, so ORDER BY <column>, rowid LIMIT walks the
  //   index (and covers the deferred join's inner query) without a temporary B-tree.
  //   (status, created_at) serves the status chips with the default sort. Counters that
  //   addStats bumps after every message are indexed too; addStats sets only the counters
  //   an event changes, so a message touches two indexes more than before, not seven.
  // - A trigram index of title and prompt for search (see task-search.ts). Contentless
  //   (the text stays in tasks only) and detail=none (no positions: ~6× smaller than
  //   detail=full); it yields candidates and LIKE on tasks decides, so what matches is
  //   exactly what LIKE matched before. Tokenizing every prompt takes seconds at 100,000
  //   tasks, too long to hold the write lock other processes wait on, so the migration
  //   only records which rowids are still to index (tasks_search_backfill) and
  //   backfillSearchIndex fills it in short transactions. Until it is done, search uses
  //   LIKE alone. The triggers keep every row the backfill has passed (or will never
  //   reach) in sync and leave the rest to it.
  // - task_counts: how many tasks have each status, repository, user and model, kept by
  //   triggers, so the filter chips and pickers of the task table's first view are read,
  //   not counted over every task (a scan of 100,000 index entries per facet otherwise).
  //   Rows whose count falls to zero are removed.
  //   The index is keyed on tasks' rowid: nothing may renumber rowids (VACUUM of a table
  //   without INTEGER PRIMARY KEY may), or the index must be rebuilt after.
  `
  CREATE INDEX IF NOT EXISTS idx_tasks_started_at ON tasks(started_at);
  CREATE INDEX IF NOT EXISTS idx_tasks_title ON tasks(title);
  CREATE INDEX IF NOT EXISTS idx_tasks_task_id ON tasks(task_id);
  CREATE INDEX IF NOT EXISTS idx_tasks_model ON tasks(model);
  CREATE INDEX IF NOT EXISTS idx_tasks_total_messages ON tasks(total_messages);
  CREATE INDEX IF NOT EXISTS idx_tasks_total_tokens ON tasks(total_tokens);
  CREATE INDEX IF NOT EXISTS idx_tasks_compression_count ON tasks(compression_count);
  CREATE INDEX IF NOT EXISTS idx_tasks_tool_call_count ON tasks(tool_call_count);
  CREATE INDEX IF NOT EXISTS idx_tasks_llm_call_count ON tasks(llm_call_count);
  CREATE INDEX IF NOT EXISTS idx_tasks_status_created_at ON tasks(status, created_at);

  CREATE VIRTUAL TABLE IF NOT EXISTS tasks_search USING fts5(
    title, prompt, content = '', contentless_delete = 1, tokenize = 'trigram', detail = none
  );
  -- rowids in (done, upto] are not indexed yet; no row here: the index is complete
  CREATE TABLE IF NOT EXISTS tasks_search_backfill (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    done INTEGER NOT NULL,
    upto INTEGER NOT NULL
  );
  INSERT OR IGNORE INTO tasks_search_backfill (id, done, upto)
    SELECT 1, 0, MAX(rowid) FROM tasks HAVING MAX(rowid) IS NOT NULL;

  CREATE TRIGGER IF NOT EXISTS tasks_search_insert AFTER INSERT ON tasks
  WHEN NOT EXISTS (SELECT 1 FROM tasks_search_backfill WHERE new.rowid > done AND new.rowid <= upto)
  BEGIN
    INSERT INTO tasks_search (rowid, title, prompt) VALUES (new.rowid, new.title, new.prompt);
  END;
  CREATE TRIGGER IF NOT EXISTS tasks_search_delete AFTER DELETE ON tasks
  WHEN NOT EXISTS (SELECT 1 FROM tasks_search_backfill WHERE old.rowid > done AND old.rowid <= upto)
  BEGIN
    DELETE FROM tasks_search WHERE rowid = old.rowid;
  END;
  CREATE TRIGGER IF NOT EXISTS tasks_search_update AFTER UPDATE OF title, prompt ON tasks
  WHEN NOT EXISTS (SELECT 1 FROM tasks_search_backfill WHERE old.rowid > done AND old.rowid <= upto)
  BEGIN
    DELETE FROM tasks_search WHERE rowid = old.rowid;
    INSERT INTO tasks_search (rowid, title, prompt) VALUES (new.rowid, new.title, new.prompt);
  END;

  CREATE TABLE IF NOT EXISTS task_counts (
    facet TEXT NOT NULL,
    value TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (facet, value)
  ) WITHOUT ROWID;
  INSERT OR IGNORE INTO task_counts (facet, value, n)
    SELECT 'status', status, COUNT(*) FROM tasks WHERE status IS NOT NULL AND status <> '' GROUP BY status;
  INSERT OR IGNORE INTO task_counts (facet, value, n)
    SELECT 'repository', repository, COUNT(*) FROM tasks WHERE repository IS NOT NULL AND repository <> '' GROUP BY repository;
  INSERT OR IGNORE INTO task_counts (facet, value, n)
    SELECT 'user', user, COUNT(*) FROM tasks WHERE user IS NOT NULL AND user <> '' GROUP BY user;
  INSERT OR IGNORE INTO task_counts (facet, value, n)
    SELECT 'model', model, COUNT(*) FROM tasks WHERE model IS NOT NULL AND model <> '' GROUP BY model;
  CREATE TRIGGER IF NOT EXISTS task_counts_insert AFTER INSERT ON tasks
  BEGIN
    INSERT INTO task_counts (facet, value, n) SELECT 'status', new.status, 1
      WHERE new.status IS NOT NULL AND new.status <> ''
      ON CONFLICT (facet, value) DO UPDATE SET n = n + 1;
    INSERT INTO task_counts (facet, value, n) SELECT 'repository', new.repository, 1
      WHERE new.repository IS NOT NULL AND new.repository <> ''
      ON CONFLICT (facet, value) DO UPDATE SET n = n + 1;
    INSERT INTO task_counts (facet, value, n) SELECT 'user', new.user, 1
      WHERE new.user IS NOT NULL AND new.user <> ''
      ON CONFLICT (facet, value) DO UPDATE SET n = n + 1;
    INSERT INTO task_counts (facet, value, n) SELECT 'model', new.model, 1
      WHERE new.model IS NOT NULL AND new.model <> ''
      ON CONFLICT (facet, value) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER IF NOT EXISTS task_counts_delete AFTER DELETE ON tasks
  BEGIN
    UPDATE task_counts SET n = n - 1 WHERE facet = 'status' AND value = old.status;
    DELETE FROM task_counts WHERE facet = 'status' AND value = old.status AND n <= 0;
    UPDATE task_counts SET n = n - 1 WHERE facet = 'repository' AND value = old.repository;
    DELETE FROM task_counts WHERE facet = 'repository' AND value = old.repository AND n <= 0;
    UPDATE task_counts SET n = n - 1 WHERE facet = 'user' AND value = old.user;
    DELETE FROM task_counts WHERE facet = 'user' AND value = old.user AND n <= 0;
    UPDATE task_counts SET n = n - 1 WHERE facet = 'model' AND value = old.model;
    DELETE FROM task_counts WHERE facet = 'model' AND value = old.model AND n <= 0;
  END;
  CREATE TRIGGER IF NOT EXISTS task_counts_status AFTER UPDATE OF status ON tasks
  WHEN old.status IS NOT new.status
  BEGIN
    UPDATE task_counts SET n = n - 1 WHERE facet = 'status' AND value = old.status;
    DELETE FROM task_counts WHERE facet = 'status' AND value = old.status AND n <= 0;
    INSERT INTO task_counts (facet, value, n) SELECT 'status', new.status, 1
      WHERE new.status IS NOT NULL AND new.status <> ''
      ON CONFLICT (facet, value) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER IF NOT EXISTS task_counts_repository AFTER UPDATE OF owner, repo ON tasks
  WHEN old.repository IS NOT new.repository
  BEGIN
    UPDATE task_counts SET n = n - 1 WHERE facet = 'repository' AND value = old.repository;
    DELETE FROM task_counts WHERE facet = 'repository' AND value = old.repository AND n <= 0;
    INSERT INTO task_counts (facet, value, n) SELECT 'repository', new.repository, 1
      WHERE new.repository IS NOT NULL AND new.repository <> ''
      ON CONFLICT (facet, value) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER IF NOT EXISTS task_counts_user AFTER UPDATE OF user ON tasks
  WHEN old.user IS NOT new.user
  BEGIN
    UPDATE task_counts SET n = n - 1 WHERE facet = 'user' AND value = old.user;
    DELETE FROM task_counts WHERE facet = 'user' AND value = old.user AND n <= 0;
    INSERT INTO task_counts (facet, value, n) SELECT 'user', new.user, 1
      WHERE new.user IS NOT NULL AND new.user <> ''
      ON CONFLICT (facet, value) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER IF NOT EXISTS task_counts_model AFTER UPDATE OF model ON tasks
  WHEN old.model IS NOT new.model
  BEGIN
    UPDATE task_counts SET n = n - 1 WHERE facet = 'model' AND value = old.model;
    DELETE FROM task_counts WHERE facet = 'model' AND value = old.model AND n <= 0;
    INSERT INTO task_counts (facet, value, n) SELECT 'model', new.model, 1
      WHERE new.model IS NOT NULL AND new.model <> ''
      ON CONFLICT (facet, value) DO UPDATE SET n = n + 1;
  END;
  `,
  // Imported sessions: which agent wrote them (a filter column), the git branch they ran on
  // (earlier imports keep theirs in metadata.json only), and the fixes older imports
  // need: updated_at was the import time, and repo stayed empty though workdir was known.
  `
  ALTER TABLE tasks ADD COLUMN agent TEXT NOT NULL DEFAULT '';
  ALTER TABLE tasks ADD COLUMN git_branch TEXT;
  CREATE INDEX idx_tasks_agent ON tasks(agent);
  UPDATE tasks SET agent = CASE task_source WHEN 'openai-chat' THEN 'openai' ELSE task_source END
    WHERE task_source IN ('claude-code', 'codex', 'openai-chat', 'swe-agent');
  UPDATE tasks SET updated_at = completed_at
    WHERE agent <> '' AND completed_at IS NOT NULL AND status IN ('completed', 'failed');
  UPDATE tasks SET repo = replace(rtrim(workdir, '/'), rtrim(rtrim(workdir, '/'), replace(rtrim(workdir, '/'), '/', '')), '')
    WHERE agent <> '' AND repo = '' AND owner = '' AND workdir LIKE '%/%' AND rtrim(workdir, '/') <> '';
  UPDATE tasks SET repo = replace(rtrim(workdir, '\\'), rtrim(rtrim(workdir, '\\'), replace(rtrim(workdir, '\\'), '\\', '')), '')
    WHERE agent <> '' AND repo = '' AND owner = '' AND workdir LIKE '%\\%';
  `,
  // Live sources (src/core/sources): the sync state of each session file of another agent.
  SOURCE_FILES_TABLE,
  // Live sources: a file whose last reply waits for it to be still.
  SOURCE_FILES_HELD,
  // The task table's Host column and filter (docs/fleet.md). A fleet's PostgreSQL index
  // has a real `host` column (the host holding the task); on one host's tasks.db the
  // host is seed 000's `hostname`, so `host` is that column under the fleet's name:
  // VIRTUAL, nothing stored twice, and the only kind ALTER TABLE can add. Indexed for
  // sorting, and counted in task_counts for the Host picker like the other facets.
  `
  ALTER TABLE tasks ADD COLUMN host TEXT GENERATED ALWAYS AS (hostname) VIRTUAL;
  CREATE INDEX IF NOT EXISTS idx_tasks_host ON tasks(host);
  INSERT OR IGNORE INTO task_counts (facet, value, n)
    SELECT 'host', hostname, COUNT(*) FROM tasks WHERE hostname IS NOT NULL AND hostname <> '' GROUP BY hostname;
  CREATE TRIGGER IF NOT EXISTS task_counts_host_insert AFTER INSERT ON tasks
  WHEN new.hostname IS NOT NULL AND new.hostname <> ''
  BEGIN
    INSERT INTO task_counts (facet, value, n) VALUES ('host', new.hostname, 1)
      ON CONFLICT (facet, value) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER IF NOT EXISTS task_counts_host_delete AFTER DELETE ON tasks
  BEGIN
    UPDATE task_counts SET n = n - 1 WHERE facet = 'host' AND value = old.hostname;
    DELETE FROM task_counts WHERE facet = 'host' AND value = old.hostname AND n <= 0;
  END;
  CREATE TRIGGER IF NOT EXISTS task_counts_host AFTER UPDATE OF hostname ON tasks
  WHEN old.hostname IS NOT new.hostname
  BEGIN
    UPDATE task_counts SET n = n - 1 WHERE facet = 'host' AND value = old.hostname;
    DELETE FROM task_counts WHERE facet = 'host' AND value = old.hostname AND n <= 0;
    INSERT INTO task_counts (facet, value, n) SELECT 'host', new.hostname, 1
      WHERE new.hostname IS NOT NULL AND new.hostname <> ''
      ON CONFLICT (facet, value) DO UPDATE SET n = n + 1;
  END;
  `,
  // Search across sessions and usage over time (src/core/search, src/core/usage).
  // - messages_search: every message's text, tool-call names and arguments, and tool output
  //   (capped, see message-text.ts), keyed by task rowid * 2^32 + seq. Contentless (the text
  //   stays in messages.jsonl; snippets are read from there) with unicode61 words and full
  //   detail, for phrases and prefixes; exact strings are checked against the message itself.
  // - messages_search_state: how far each task is indexed (seq, and the characters indexed).
  // - messages_search_dirty: tasks with messages not indexed yet. Triggers add a task when it
  //   is inserted or its message count changes, whoever wrote it (a task process, import,
  //   source sync); indexPendingMessages reads the new messages from the task's folder. Every
  //   existing task starts dirty: the backfill is that same catch-up, resumable per batch.
  // - usage_hours: provider usage per task and UTC hour, as the writers saw it (our own
  //   messages' usage, an import's or a sync's LLM calls at their messages' times). A task's
  //   counters minus these hours are placed at its last activity, so days add up to tasks.
  `
  CREATE VIRTUAL TABLE IF NOT EXISTS messages_search USING fts5(
    body, role, tool, content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2'
  );
  CREATE TABLE IF NOT EXISTS messages_search_state (
    task INTEGER PRIMARY KEY,
    seq INTEGER NOT NULL DEFAULT 0,
    chars INTEGER NOT NULL DEFAULT 0
  );
  CREATE TABLE IF NOT EXISTS messages_search_dirty (task INTEGER PRIMARY KEY);
  INSERT OR IGNORE INTO messages_search_dirty (task) SELECT rowid FROM tasks;
  CREATE TABLE IF NOT EXISTS usage_hours (
    task INTEGER NOT NULL,
    hour TEXT NOT NULL,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0,
    cache_creation_tokens INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (task, hour)
  ) WITHOUT ROWID;
  CREATE TRIGGER IF NOT EXISTS messages_search_task_insert AFTER INSERT ON tasks
  BEGIN
    INSERT OR IGNORE INTO messages_search_dirty (task) VALUES (new.rowid);
  END;
  CREATE TRIGGER IF NOT EXISTS messages_search_task_grow AFTER UPDATE OF total_messages ON tasks
  WHEN new.total_messages IS NOT old.total_messages
  BEGIN
    INSERT OR IGNORE INTO messages_search_dirty (task) VALUES (new.rowid);
  END;
  CREATE TRIGGER IF NOT EXISTS messages_search_task_delete AFTER DELETE ON tasks
  BEGIN
    DELETE FROM messages_search
      WHERE rowid >= old.rowid * 4294967296 AND rowid < (old.rowid + 1) * 4294967296;
    DELETE FROM messages_search_state WHERE task = old.rowid;
    DELETE FROM messages_search_dirty WHERE task = old.rowid;
    DELETE FROM usage_hours WHERE task = old.rowid;
  END;
  `,
  // The LLM calls of compactions (summaries.jsonl `llm_usage`: our summarizer's calls, an
  // agent's own compaction run such as Claude Code's acompact), which a task's cost counts
  // beside its counters (src/core/cost/task-cost.ts): usage_compactions holds them per
  // record, at the record's hour and on its model (NULL: the task's), read by the search
  // catch-up (message-index.ts) as it reads new messages. Its cursor is the highest record
  // id read; a task is dirty again when its total_summaries changes, and every task with
  // compactions already is re-read once.
  `
  CREATE TABLE IF NOT EXISTS usage_compactions (
    task INTEGER NOT NULL,
    id INTEGER NOT NULL,
    hour TEXT NOT NULL,
    model TEXT,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0,
    cache_creation_tokens INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (task, id)
  ) WITHOUT ROWID;
  ALTER TABLE messages_search_state ADD COLUMN summaries INTEGER NOT NULL DEFAULT 0;
  DROP TRIGGER IF EXISTS messages_search_task_grow;
  CREATE TRIGGER messages_search_task_grow
  AFTER UPDATE OF total_messages, total_summaries ON tasks
  WHEN new.total_messages IS NOT old.total_messages
    OR new.total_summaries IS NOT old.total_summaries
  BEGIN
    INSERT OR IGNORE INTO messages_search_dirty (task) VALUES (new.rowid);
  END;
  CREATE TRIGGER IF NOT EXISTS usage_compactions_task_delete AFTER DELETE ON tasks
  BEGIN
    DELETE FROM usage_compactions WHERE task = old.rowid;
  END;
  INSERT OR IGNORE INTO messages_search_dirty (task)
    SELECT rowid FROM tasks WHERE total_summaries > 0;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;
