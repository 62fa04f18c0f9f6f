import type { TaskRow } from '../../shared/task-types';
import type { AppConfig } from '../config/app-config';
import { builtinToolDefinitions } from '../tools';

/**
 * The tool schemas our own agent sends with every call of a task, as JSON (they take room
 * in its context besides the messages); null for another agent's session, which does not
 * record its own. Which tools were offered follows the config (`tools.run_command`).
 */
export function ownToolDefinitions(row: TaskRow, config: () => AppConfig): string | null {
  if ((row.agent ?? '') !== '') return null;
  let allowRunCommand = true;
  try {
    allowRunCommand = config().tools.run_command;
  } catch {
    // A config that does not load: the full set, as a task started with defaults has.
  }
  return JSON.stringify(builtinToolDefinitions({ allowRunCommand }));
}
