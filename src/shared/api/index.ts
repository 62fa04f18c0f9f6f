/** The workbench API contract shared by every host and the UI (see contract.ts). */
export { WORKBENCH_CONTRACT, WORKBENCH_FEATURES, type WorkbenchContract } from './contract';
export * from './operation-names';
export * from './api-result';
export * from './events';
export type * from './workbench-api';
export { validateInput, describeIssues, issuePath } from './validate-input';
export { buildApiObject } from './build-api';
export * from './app-api';
export * from './tasks-api';
export * from './messages-api';
export * from './compaction-api';
export * from './tool-outputs-api';
export * from './control-api';
export * from './transfer-api';
export * from './settings-api';
export * from './common-schemas';
export * from './task-view-api';
export * from './sources-api';
