import type { ContextStore } from '../store/context-store';
import { readMetadata } from '../store/task-metadata';
import { runOnIndex } from './index-sql';
import { isSessionThread } from './session-document';

/**
 * Sub-agents synced before their parent's session: a Gemini CLI sub-agent's chat
 * (`chats/<parent id>/…`) sorts before its parent's `session-*` file, a Codex sub-agent's
 * rollout or a Claude Code `agent-*.jsonl` may be read before its parent's. Their task is
 * made without a parent; the parent's task, once made, takes them. (describeSourceTask
 * links such a child too, but only when its own file changes again.)
 *
 * Per store and process: the children waiting, by `kind \0 parent session id`. Read once from
 * the index (subagent tasks without a parent, each one's metadata.json naming the session it
 * waits for), then kept up to date as tasks are made. A child another process makes after
 * that read is linked by describeSourceTask when it changes, as before.
 */
const waiting = new WeakMap<ContextStore, Map<string, Set<string>>>();

const keyOf = (kind: string, session: string): string => `${kind}\0${session}`;

function waitingIn(store: ContextStore): Map<string, Set<string>> {
  let map = waiting.get(store);
  if (map) return map;
  map = new Map();
  const orphans = runOnIndex(
    store,
    `SELECT uuid, status, task_source FROM tasks WHERE task_type = 'subagent' AND parent_uuid IS NULL`,
    {},
  ) as { uuid: string; status: string; task_source: string }[];
  for (const row of orphans) {
    const source = readMetadata(
      store.taskPath(row as Parameters<ContextStore['taskPath']>[0]),
    )?.source;
    const session = source ? parentSessionOf(source) : undefined;
    if (session !== undefined) add(map, keyOf(row.task_source, session), row.uuid);
  }
  waiting.set(store, map);
  return map;
}

/** The session a source task's parent is: the one that spawned it, or (a sub-agent thread) its own session. */
function parentSessionOf(source: Record<string, unknown>): string | undefined {
  if (typeof source.parent_session_id === 'string') return source.parent_session_id;
  const ownThread = typeof source.thread === 'string' && !isSessionThread(source.thread);
  return ownThread && typeof source.session_id === 'string' ? source.session_id : undefined;
}

function add(map: Map<string, Set<string>>, key: string, uuid: string): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(uuid);
}

/** A sub-agent's task made before its parent's: it waits for the session `parentSession`. */
export function waitForParent(
  store: ContextStore,
  kind: string,
  parentSession: string,
  uuid: string,
): void {
  add(waitingIn(store), keyOf(kind, parentSession), uuid);
}

/** A session's task was made: the sub-agents waiting for it become its children; their uuids. */
export function adoptWaitingChildren(
  store: ContextStore,
  kind: string,
  session: string,
  parentUuid: string,
): string[] {
  const map = waitingIn(store);
  const key = keyOf(kind, session);
  const children = [...(map.get(key) ?? [])].filter((uuid) => uuid !== parentUuid);
  map.delete(key);
  if (children.length === 0) return [];
  store.repo.write(() => {
    for (const child of children)
      runOnIndex(
        store,
        'UPDATE tasks SET parent_uuid = @parent WHERE uuid = @child AND parent_uuid IS NULL',
        { parent: parentUuid, child },
      );
  });
  return children;
}
