/**
 * Every operation of the workbench API by name, with no schema attached: the preload and
 * the renderer's transports need only the names, and a sandboxed preload should not carry
 * zod. contract.ts proves at compile time that this list and the contract agree.
 */
export const OPERATION_NAMES = [
  'appInfo',
  'queryTasks',
  'getTask',
  'readMessages',
  'searchMessages',
  'listCompactions',
  'previewCompaction',
  'runCompaction',
  'undoCompaction',
  'rewindTask',
  'compactionDiff',
  'compactionNeededNext',
  'compactionDefaults',
  'cancelCompaction',
  'previewRewind',
  'evaluateCompaction',
  'readToolOutput',
  'startTask',
  'pauseTask',
  'resumeTask',
  'stopTask',
  'exportTasks',
  'estimateExport',
  'importFiles',
  'getSettings',
  'updateSettings',
  'testProvider',
  'contextUsage',
  'contextBreakdown',
  'listPlanning',
  'listToolCalls',
  'listSources',
  'syncSources',
  'searchSessions',
  'usageReport',
  'integrationStatus',
  'previewIntegration',
  'applyIntegration',
] as const;

export type OperationName = (typeof OPERATION_NAMES)[number];

export function isOperationName(value: unknown): value is OperationName {
  return typeof value === 'string' && (OPERATION_NAMES as readonly string[]).includes(value);
}

/** Electron IPC: one invoke channel per operation, one push channel for live events. */
export const IPC_OPERATION_PREFIX = 'cwb:api:';
export const IPC_EVENT_CHANNEL = 'cwb:event';

export function ipcChannel(name: OperationName): string {
  return `${IPC_OPERATION_PREFIX}${name}`;
}

/** HTTP (`cwb serve`): POST /api/<operation> with a JSON body; GET /api/events is the SSE stream. */
export const HTTP_API_PREFIX = '/api/';
export const HTTP_EVENTS_PATH = '/api/events';
