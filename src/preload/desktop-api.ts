import {
  IPC_PICK_EXPORT_FOLDER,
  IPC_PICK_IMPORT_FILES,
  type DesktopApi,
} from '../shared/api/desktop-api';
import type { PreloadIpc } from './window-api';

/** `window.desktop`: the two pickers, each one fixed channel; nothing else of ipcRenderer. */
export function createDesktopApi(ipc: Pick<PreloadIpc, 'invoke'>): DesktopApi {
  return {
    pickImportFiles: () =>
      ipc.invoke(IPC_PICK_IMPORT_FILES, null) as ReturnType<DesktopApi['pickImportFiles']>,
    pickExportFolder: () =>
      ipc.invoke(IPC_PICK_EXPORT_FOLDER, null) as ReturnType<DesktopApi['pickExportFolder']>,
  };
}
