import { appOperations } from './app-api';
import { compactionOperations } from './compaction-api';
import { controlOperations } from './control-api';
import { messagesOperations } from './messages-api';
import type { z } from 'zod';
import type { OperationName } from './operation-names';
import { providerTestOperations } from './provider-test-api';
import { searchOperations } from './search-api';
import { settingsOperations } from './settings-api';
import { sourcesOperations } from './sources-api';
import { tasksOperations } from './tasks-api';
import { taskViewOperations } from './task-view-api';
import { toolOutputsOperations } from './tool-outputs-api';
import { transferOperations } from './transfer-api';
import { usageOperations } from './usage-api';
import { integrationOperations } from './integration-api';

/**
 * The workbench API: every operation the UI needs, by name, with its input schema and
 * output type. Electron IPC (preload + main) and `cwb serve` (HTTP + SSE) both serve
 * exactly this map, and the renderer talks to it without knowing which one it has.
 * Grouped by feature (hosts register handlers feature by feature) and as one map.
 */
export const WORKBENCH_FEATURES = {
  app: appOperations,
  tasks: tasksOperations,
  messages: messagesOperations,
  compaction: compactionOperations,
  toolOutputs: toolOutputsOperations,
  control: controlOperations,
  transfer: transferOperations,
  settings: settingsOperations,
  providerTest: providerTestOperations,
  taskView: taskViewOperations,
  sources: sourcesOperations,
  search: searchOperations,
  usage: usageOperations,
  integration: integrationOperations,
};

export const WORKBENCH_CONTRACT = {
  ...appOperations,
  ...tasksOperations,
  ...messagesOperations,
  ...compactionOperations,
  ...toolOutputsOperations,
  ...controlOperations,
  ...transferOperations,
  ...settingsOperations,
  ...providerTestOperations,
  ...taskViewOperations,
  ...sourcesOperations,
  ...searchOperations,
  ...usageOperations,
  ...integrationOperations,
};

export type WorkbenchContract = typeof WORKBENCH_CONTRACT;

// The name list (used where zod should not be bundled) and the contract must agree both ways.
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const namesMatch: Exact<keyof WorkbenchContract, OperationName> = true;
const everyEntryIsAnOperation: WorkbenchContract extends Record<OperationName, { input: z.ZodType }>
  ? true
  : false = true;
void namesMatch;
void everyEntryIsAnOperation;
