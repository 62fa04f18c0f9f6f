import type { TaskStringKey } from './strings';

/** A message role as the UI names it, in the UI's language. */
export const ROLE_KEYS: Partial<Record<string, TaskStringKey>> = {
  system: 'roleSystem',
  user: 'roleUser',
  assistant: 'roleAssistant',
  tool: 'roleTool',
};
