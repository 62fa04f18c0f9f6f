/**
 * The PostgreSQL task index's schema (docs/fleet.md). The tasks table keeps tasks.db's
 * name and columns (schema.ts), so `psql` users find what they expect, plus:
 * - `host`: the host whose contexts folder holds the task (only it reconciles the row
 *   with a folder, and only it writes the row while the task runs);
 * - `seq`: insertion order, the tie-break SQLite's rowid gives (PostgreSQL has none);
 * - `folder_id` (v5): the contexts folder holding the task (folder-identity.ts): only that
 *   folder reconciles the row, so two folders of one host keep their rows apart.
 * Text columns compare with the "C" collation, byte order like SQLite's BINARY, so the
 * same list sorts the same on both whatever the server's locale.
 *
 * Migrations only move forward; `cwb_schema.version` records where a database stands.
 * Adding a column to tasks.db (schema.ts) means appending its ALTER TABLE here too.
 */
export const PG_MIGRATIONS: readonly string[] = [
  `
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
  CREATE TABLE tasks (
    uuid TEXT COLLATE "C" PRIMARY KEY,
    status TEXT COLLATE "C" NOT NULL,
    title TEXT COLLATE "C",
    prompt TEXT COLLATE "C",
    workdir TEXT,
    parent_uuid TEXT,
    task_source TEXT COLLATE "C" NOT NULL DEFAULT '',
    owner TEXT COLLATE "C" NOT NULL DEFAULT '',
    repo TEXT COLLATE "C" NOT NULL DEFAULT '',
    task_type TEXT COLLATE "C" NOT NULL DEFAULT '',
    task_id TEXT COLLATE "C" NOT NULL DEFAULT '',
    repository TEXT COLLATE "C" GENERATED ALWAYS AS (CASE WHEN owner <> '' THEN owner || '/' || repo ELSE repo END) STORED,
    task_identifier TEXT COLLATE "C" GENERATED ALWAYS AS (task_id) STORED,
    "user" TEXT COLLATE "C",
    created_at TEXT COLLATE "C" NOT NULL,
    started_at TEXT COLLATE "C",
    updated_at TEXT COLLATE "C" NOT NULL,
    completed_at TEXT COLLATE "C",
    process_id INTEGER,
    hostname TEXT,
    llm_provider TEXT,
    model TEXT COLLATE "C",
    context_length BIGINT,
    llm_call_count BIGINT NOT NULL DEFAULT 0,
    tool_call_count BIGINT NOT NULL DEFAULT 0,
    input_tokens BIGINT NOT NULL DEFAULT 0,
    output_tokens BIGINT NOT NULL DEFAULT 0,
    cache_creation_tokens BIGINT NOT NULL DEFAULT 0,
    cache_read_tokens BIGINT NOT NULL DEFAULT 0,
    total_tokens BIGINT NOT NULL DEFAULT 0,
    compression_count BIGINT NOT NULL DEFAULT 0,
    total_messages BIGINT NOT NULL DEFAULT 0,
    total_summaries BIGINT NOT NULL DEFAULT 0,
    total_tool_calls BIGINT NOT NULL DEFAULT 0,
    final_token_count BIGINT,
    final_message_count BIGINT,
    error_message TEXT,
    metadata TEXT,
    control TEXT,
    host TEXT COLLATE "C",
    seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE
  );
  -- Every sort column, NULLS FIRST like SQLite ascending (a backward scan is SQLite's
  -- descending), ending with seq, so ORDER BY col, seq LIMIT walks the index.
  CREATE INDEX idx_tasks_created_at ON tasks (created_at NULLS FIRST, seq);
  CREATE INDEX idx_tasks_updated_at ON tasks (updated_at NULLS FIRST, seq);
  CREATE INDEX idx_tasks_completed_at ON tasks (completed_at NULLS FIRST, seq);
  CREATE INDEX idx_tasks_started_at ON tasks (started_at NULLS FIRST, seq);
  CREATE INDEX idx_tasks_status ON tasks (status NULLS FIRST, seq);
  CREATE INDEX idx_tasks_status_created_at ON tasks (status, created_at NULLS FIRST, seq);
  CREATE INDEX idx_tasks_title ON tasks (title NULLS FIRST, seq);
  CREATE INDEX idx_tasks_repo ON tasks (repo NULLS FIRST, seq);
  CREATE INDEX idx_tasks_repository ON tasks (repository NULLS FIRST, seq);
  CREATE INDEX idx_tasks_task_type ON tasks (task_type NULLS FIRST, seq);
  CREATE INDEX idx_tasks_task_id ON tasks (task_id NULLS FIRST, seq);
  CREATE INDEX idx_tasks_user ON tasks ("user" NULLS FIRST, seq);
  CREATE INDEX idx_tasks_model ON tasks (model NULLS FIRST, seq);
  CREATE INDEX idx_tasks_total_messages ON tasks (total_messages NULLS FIRST, seq);
  CREATE INDEX idx_tasks_total_tokens ON tasks (total_tokens NULLS FIRST, seq);
  CREATE INDEX idx_tasks_compression_count ON tasks (compression_count NULLS FIRST, seq);
  CREATE INDEX idx_tasks_tool_call_count ON tasks (tool_call_count NULLS FIRST, seq);
  CREATE INDEX idx_tasks_llm_call_count ON tasks (llm_call_count NULLS FIRST, seq);
  CREATE INDEX idx_tasks_key ON tasks (task_source, owner, repo, task_type, task_id, "user");
  CREATE INDEX idx_tasks_host_status ON tasks (host, status);
  -- Search: trigram indexes answer ILIKE '%text%' (3 characters or more) without a scan.
  CREATE INDEX idx_tasks_title_trgm ON tasks USING gin (title gin_trgm_ops);
  CREATE INDEX idx_tasks_prompt_trgm ON tasks USING gin (prompt gin_trgm_ops);

  -- The UI's change stamp: bumped by every statement that changes tasks. A sequence takes
  -- no lock, so concurrent writers never wait on it.
  CREATE SEQUENCE tasks_change_seq;
  CREATE FUNCTION tasks_changed() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM nextval('tasks_change_seq');
    RETURN NULL;
  END $$;
  CREATE TRIGGER tasks_changed AFTER INSERT OR UPDATE OR DELETE ON tasks
    FOR EACH STATEMENT EXECUTE FUNCTION tasks_changed();

  -- Each host's lease: renewed by its heartbeat; a host whose lease ran out is dead, and
  -- the next host that checks marks its running tasks interrupted (server clock only).
  CREATE TABLE hosts (
    name TEXT COLLATE "C" PRIMARY KEY,
    contexts_root TEXT,
    started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_seen TIMESTAMPTZ NOT NULL DEFAULT now(),
    lease_expires TIMESTAMPTZ NOT NULL
  );
  `,
  // v2: imported sessions' agent (a filter column) and git branch.
  `
  ALTER TABLE tasks ADD COLUMN agent TEXT COLLATE "C" NOT NULL DEFAULT '';
  ALTER TABLE tasks ADD COLUMN git_branch TEXT;
  CREATE INDEX idx_tasks_agent ON tasks (agent, seq);
  `,
  // v3: the filter chips' and pickers' counts, kept as tasks.db keeps them (task_counts),
  // but as delta rows that are only ever inserted: one kept row per value would be a hot
  // row every writer of the fleet updates, and status changes in opposite directions
  // could deadlock. Reads sum the deltas; PgTaskRepository folds them now and then.
  `
  CREATE TABLE task_counts (
    facet TEXT COLLATE "C" NOT NULL,
    value TEXT COLLATE "C" NOT NULL,
    n BIGINT NOT NULL
  );
  CREATE INDEX idx_task_counts ON task_counts (facet, value);
  INSERT INTO task_counts (facet, value, n)
    SELECT f.facet, f.value, COUNT(*) FROM tasks AS t
    CROSS JOIN LATERAL (VALUES ('status', t.status), ('repository', t.repository),
      ('user', t."user"), ('model', t.model)) AS f (facet, value)
    WHERE f.value IS NOT NULL AND f.value <> '' GROUP BY f.facet, f.value;

  CREATE FUNCTION task_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO task_counts (facet, value, n)
      SELECT f.facet, f.value, COUNT(*) FROM new_rows AS t
      CROSS JOIN LATERAL (VALUES ('status', t.status), ('repository', t.repository),
        ('user', t."user"), ('model', t.model)) AS f (facet, value)
      WHERE f.value IS NOT NULL AND f.value <> '' GROUP BY f.facet, f.value;
    RETURN NULL;
  END $$;
  CREATE FUNCTION task_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO task_counts (facet, value, n)
      SELECT f.facet, f.value, -COUNT(*) FROM old_rows AS t
      CROSS JOIN LATERAL (VALUES ('status', t.status), ('repository', t.repository),
        ('user', t."user"), ('model', t.model)) AS f (facet, value)
      WHERE f.value IS NOT NULL AND f.value <> '' GROUP BY f.facet, f.value;
    RETURN NULL;
  END $$;
  -- Row level with a column list and WHEN: counter updates (after every message) skip it.
  CREATE FUNCTION task_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO task_counts (facet, value, n)
      SELECT d.facet, d.value, SUM(d.n) FROM (VALUES
        ('status', OLD.status, -1), ('status', NEW.status, 1),
        ('repository', OLD.repository, -1), ('repository', NEW.repository, 1),
        ('user', OLD."user", -1), ('user', NEW."user", 1),
        ('model', OLD.model, -1), ('model', NEW.model, 1)) AS d (facet, value, n)
      WHERE d.value IS NOT NULL AND d.value <> ''
      GROUP BY d.facet, d.value HAVING SUM(d.n) <> 0;
    RETURN NULL;
  END $$;
  CREATE TRIGGER task_counts_insert AFTER INSERT ON tasks REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION task_counts_inserted();
  CREATE TRIGGER task_counts_delete AFTER DELETE ON tasks REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION task_counts_deleted();
  CREATE TRIGGER task_counts_update AFTER UPDATE OF status, owner, repo, "user", model ON tasks
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status
      OR OLD.repository IS DISTINCT FROM NEW.repository
      OR OLD."user" IS DISTINCT FROM NEW."user" OR OLD.model IS DISTINCT FROM NEW.model)
    EXECUTE FUNCTION task_counts_updated();
  `,
  // v4:
  // - Search moves out of the tasks row into task_search (seq, title, prompt), kept by
  //   triggers, as tasks.db keeps its search index beside tasks. Every counter update
  //   (after every message of every running task) writes a new version of its tasks row
  //   and, sort columns being indexed, new entries in every index of the row: with the
  //   trigram indexes on tasks that was the whole prompt's trigrams each time. They piled
  //   up in the GIN pending lists, which every search reads through: after 6,400 counter
  //   updates a search that matched nothing took 126 ms and a common word 1 s (the planner
  //   gave up on the indexes). task_search changes only with a title or prompt.
  // - The task table's Host column and filter. task_counts also keeps the hosts and the
  //   agents ('' included: this app's own tasks are a choice of the agent picker), so the
  //   pickers are read like the others instead of grouping every task (an index-only
  //   scan of 100,000 entries per picker). Host sorts like every sort column.
  // - Autovacuum visits tasks after 2 % of its rows changed instead of 20 %: counter
  //   updates leave dead versions whose pages deep pages' index-only scans must visit
  //   until a vacuum marks them all-visible again.
  // Copying the text and indexing it takes about a minute at 100,000 tasks, under the
  // migration lock (other hosts' index calls wait meanwhile).
  `
  CREATE TABLE task_search (
    seq BIGINT PRIMARY KEY,
    title TEXT COLLATE "C",
    prompt TEXT COLLATE "C"
  );
  INSERT INTO task_search (seq, title, prompt) SELECT seq, title, prompt FROM tasks;
  -- A small pending list: new entries wait there for a batched merge, and every search
  -- reads all of it. PostgreSQL's 4 MB is some 200 tasks' trigrams; 256 kB keeps the
  -- read short and still merges in batches (inserting 10,000 rows: 1.9x the time of 4 MB,
  -- where no pending list at all took 9x).
  CREATE INDEX idx_task_search_title ON task_search USING gin (title gin_trgm_ops)
    WITH (gin_pending_list_limit = 256);
  CREATE INDEX idx_task_search_prompt ON task_search USING gin (prompt gin_trgm_ops)
    WITH (gin_pending_list_limit = 256);
  DROP INDEX idx_tasks_title_trgm;
  DROP INDEX idx_tasks_prompt_trgm;
  CREATE FUNCTION task_search_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO task_search (seq, title, prompt) SELECT seq, title, prompt FROM new_rows;
    RETURN NULL;
  END $$;
  CREATE FUNCTION task_search_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    DELETE FROM task_search WHERE seq IN (SELECT seq FROM old_rows);
    RETURN NULL;
  END $$;
  CREATE FUNCTION task_search_updated() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE task_search SET title = NEW.title, prompt = NEW.prompt WHERE seq = NEW.seq;
    RETURN NULL;
  END $$;
  CREATE TRIGGER task_search_insert AFTER INSERT ON tasks REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION task_search_inserted();
  CREATE TRIGGER task_search_delete AFTER DELETE ON tasks REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION task_search_deleted();
  CREATE TRIGGER task_search_update AFTER UPDATE OF title, prompt ON tasks
    FOR EACH ROW WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.prompt IS DISTINCT FROM NEW.prompt)
    EXECUTE FUNCTION task_search_updated();
  ALTER TABLE tasks SET (autovacuum_vacuum_scale_factor = 0.02,
    autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02);

  CREATE INDEX idx_tasks_host ON tasks (host NULLS FIRST, seq);
  -- Statistics now: without them the planner takes every search for a rare one.
  ANALYZE task_search;
  INSERT INTO task_counts (facet, value, n)
    SELECT f.facet, f.value, COUNT(*) FROM tasks AS t
    CROSS JOIN LATERAL (VALUES ('host', t.host), ('agent', t.agent)) AS f (facet, value)
    WHERE f.value IS NOT NULL AND (f.value <> '' OR f.facet = 'agent') GROUP BY f.facet, f.value;

  CREATE OR REPLACE FUNCTION task_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO task_counts (facet, value, n)
      SELECT f.facet, f.value, COUNT(*) FROM new_rows AS t
      CROSS JOIN LATERAL (VALUES ('status', t.status), ('repository', t.repository),
        ('user', t."user"), ('model', t.model), ('host', t.host), ('agent', t.agent))
        AS f (facet, value)
      WHERE f.value IS NOT NULL AND (f.value <> '' OR f.facet = 'agent')
      GROUP BY f.facet, f.value;
    RETURN NULL;
  END $$;
  CREATE OR REPLACE FUNCTION task_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO task_counts (facet, value, n)
      SELECT f.facet, f.value, -COUNT(*) FROM old_rows AS t
      CROSS JOIN LATERAL (VALUES ('status', t.status), ('repository', t.repository),
        ('user', t."user"), ('model', t.model), ('host', t.host), ('agent', t.agent))
        AS f (facet, value)
      WHERE f.value IS NOT NULL AND (f.value <> '' OR f.facet = 'agent')
      GROUP BY f.facet, f.value;
    RETURN NULL;
  END $$;
  CREATE OR REPLACE FUNCTION task_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO task_counts (facet, value, n)
      SELECT d.facet, d.value, SUM(d.n) FROM (VALUES
        ('status', OLD.status, -1), ('status', NEW.status, 1),
        ('repository', OLD.repository, -1), ('repository', NEW.repository, 1),
        ('user', OLD."user", -1), ('user', NEW."user", 1),
        ('model', OLD.model, -1), ('model', NEW.model, 1),
        ('host', OLD.host, -1), ('host', NEW.host, 1),
        ('agent', OLD.agent, -1), ('agent', NEW.agent, 1)) AS d (facet, value, n)
      WHERE d.value IS NOT NULL AND (d.value <> '' OR d.facet = 'agent')
      GROUP BY d.facet, d.value HAVING SUM(d.n) <> 0;
    RETURN NULL;
  END $$;
  DROP TRIGGER task_counts_update ON tasks;
  CREATE TRIGGER task_counts_update
    AFTER UPDATE OF status, owner, repo, "user", model, host, agent ON tasks
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status
      OR OLD.repository IS DISTINCT FROM NEW.repository
      OR OLD."user" IS DISTINCT FROM NEW."user" OR OLD.model IS DISTINCT FROM NEW.model
      OR OLD.host IS DISTINCT FROM NEW.host OR OLD.agent IS DISTINCT FROM NEW.agent)
    EXECUTE FUNCTION task_counts_updated();
  `,
  // v5: contexts folders have their own identity (issue 29). Two folders of one host
  // reconciled "this host's" rows against their own folder and removed each other's; now
  // each row names its folder (folder_id, the id in the folder's folder-id.json) and each
  // folder keeps its own lease. Rows written before stay NULL until their folder opens:
  // it adopts the rows of its host whose task folders it holds (all of them when the
  // host's lease recorded this folder), so nothing is removed by the upgrade. The hosts
  // table keeps the leases of hosts that have not opened since (their rows' liveness).
  `
  ALTER TABLE tasks ADD COLUMN folder_id TEXT COLLATE "C";
  CREATE INDEX idx_tasks_folder_status ON tasks (folder_id, status);
  CREATE TABLE folders (
    id TEXT COLLATE "C" PRIMARY KEY,
    host TEXT COLLATE "C" NOT NULL,
    contexts_root TEXT NOT NULL,
    started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_seen TIMESTAMPTZ NOT NULL DEFAULT now(),
    lease_expires TIMESTAMPTZ NOT NULL
  );
  CREATE INDEX idx_folders_host ON folders (host);
  `,
  // v6: search across sessions and usage over time (docs/search-and-usage.md), as tasks.db
  // schema v8 and v9 keep them, keyed by the task's seq (SQLite's rowid):
  // - messages_search: each message's indexed text (message-text.ts) and its words as a
  //   tsvector the catch-up builds (pg-text-search.ts: unicode61's words, case and Latin
  //   diacritics folded, not PostgreSQL's parser, so a query finds what tasks.db finds),
  //   a GIN index on them; `tools` the same for the tool filter. The text is kept (not in
  //   tasks.db): snippets and the exact check read it, and another host's files may be out
  //   of reach. `host` and `folder_id` say which contexts folder wrote the row.
  // - messages_search_state, messages_search_dirty: the catch-up's cursor per task and the
  //   tasks with messages (or compaction records) not read yet; a trigger marks a task
  //   dirty when it is inserted or its counts change, whoever writes it. `mark` counts the
  //   changes, so the catch-up clears a dirty row only if no change came in meanwhile (a
  //   delete waits for, then re-checks, the row a concurrent writer updated).
  // - usage_hours, usage_compactions: usage by task and UTC hour, and compactions' calls.
  // Every existing task starts dirty: its folder's catch-up indexes it.
  `
  CREATE TABLE messages_search (
    task BIGINT NOT NULL,
    seq BIGINT NOT NULL,
    role TEXT COLLATE "C" NOT NULL,
    tool TEXT COLLATE "C" NOT NULL,
    "timestamp" TEXT,
    body TEXT COLLATE "C" NOT NULL,
    words tsvector NOT NULL,
    tools tsvector NOT NULL,
    host TEXT COLLATE "C",
    folder_id TEXT COLLATE "C",
    PRIMARY KEY (task, seq)
  );
  CREATE INDEX idx_messages_search_words ON messages_search USING gin (words)
    WITH (gin_pending_list_limit = 1024);
  CREATE TABLE messages_search_state (
    task BIGINT PRIMARY KEY,
    seq BIGINT NOT NULL DEFAULT 0,
    chars BIGINT NOT NULL DEFAULT 0,
    summaries BIGINT NOT NULL DEFAULT 0
  );
  CREATE TABLE messages_search_dirty (
    task BIGINT PRIMARY KEY,
    mark BIGINT NOT NULL DEFAULT 1
  );
  CREATE TABLE usage_hours (
    task BIGINT NOT NULL,
    hour TEXT COLLATE "C" NOT NULL,
    input_tokens BIGINT NOT NULL DEFAULT 0,
    output_tokens BIGINT NOT NULL DEFAULT 0,
    cache_read_tokens BIGINT NOT NULL DEFAULT 0,
    cache_creation_tokens BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (task, hour)
  );
  CREATE TABLE usage_compactions (
    task BIGINT NOT NULL,
    id BIGINT NOT NULL,
    hour TEXT COLLATE "C" NOT NULL,
    model TEXT COLLATE "C",
    input_tokens BIGINT NOT NULL DEFAULT 0,
    output_tokens BIGINT NOT NULL DEFAULT 0,
    cache_read_tokens BIGINT NOT NULL DEFAULT 0,
    cache_creation_tokens BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (task, id)
  );
  INSERT INTO messages_search_dirty (task) SELECT seq FROM tasks;

  CREATE FUNCTION messages_search_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO messages_search_dirty (task) SELECT seq FROM new_rows
      ON CONFLICT (task) DO UPDATE SET mark = messages_search_dirty.mark + 1;
    RETURN NULL;
  END $$;
  CREATE FUNCTION messages_search_grown() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO messages_search_dirty (task) VALUES (NEW.seq)
      ON CONFLICT (task) DO UPDATE SET mark = messages_search_dirty.mark + 1;
    RETURN NULL;
  END $$;
  CREATE FUNCTION messages_search_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    DELETE FROM messages_search WHERE task IN (SELECT seq FROM old_rows);
    DELETE FROM messages_search_state WHERE task IN (SELECT seq FROM old_rows);
    DELETE FROM messages_search_dirty WHERE task IN (SELECT seq FROM old_rows);
    DELETE FROM usage_hours WHERE task IN (SELECT seq FROM old_rows);
    DELETE FROM usage_compactions WHERE task IN (SELECT seq FROM old_rows);
    RETURN NULL;
  END $$;
  CREATE TRIGGER messages_search_insert AFTER INSERT ON tasks REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION messages_search_inserted();
  CREATE TRIGGER messages_search_grow AFTER UPDATE OF total_messages, total_summaries ON tasks
    FOR EACH ROW WHEN (OLD.total_messages IS DISTINCT FROM NEW.total_messages
      OR OLD.total_summaries IS DISTINCT FROM NEW.total_summaries)
    EXECUTE FUNCTION messages_search_grown();
  CREATE TRIGGER messages_search_delete AFTER DELETE ON tasks REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION messages_search_deleted();
  `,
];

export const PG_SCHEMA_VERSION = PG_MIGRATIONS.length;
