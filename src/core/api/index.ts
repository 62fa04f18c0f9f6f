/** The workbench API over the engine, shared by the Electron main process and `cwb serve`. */
export {
  createWorkbenchService,
  type WorkbenchService,
  type WorkbenchServiceOptions,
} from './workbench-service';
export { EventHub } from './event-hub';
export { invokeOperation } from './invoke-operation';
export { toErrorInfo } from './error-envelope';
export type { HostInfo } from './service-context';
