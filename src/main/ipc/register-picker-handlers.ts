import type { BrowserWindow, Dialog, IpcMain, IpcMainInvokeEvent } from 'electron';
import type { ApiResult } from '../../shared/api/api-result';
import {
  IMPORT_EXTENSIONS,
  IPC_PICK_EXPORT_FOLDER,
  IPC_PICK_IMPORT_FILES,
} from '../../shared/api/desktop-api';

type Sender = Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>;

export interface PickerHandlerDeps {
  ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>;
  dialog: Pick<Dialog, 'showOpenDialog'>;
  isTrustedSender: (event: Sender) => boolean;
  /** The window that asked, so the dialog is modal to it (null: a free dialog). */
  windowOf: (event: Sender) => BrowserWindow | null;
  /** Where the export folder picker opens. */
  exportDir: string;
  warn: (message: string) => void;
}

const FORBIDDEN = {
  ok: false,
  error: { code: 'forbidden', message: 'this IPC call does not come from the app' },
} satisfies ApiResult<never>;

/**
 * The desktop pickers: the main process opens the system dialog and answers with the chosen
 * paths; the page then calls importFiles / exportTasks with them like any other input (they
 * are validated there). Only the app's own window may open a dialog.
 */
export function registerPickerHandlers(deps: PickerHandlerDeps): () => void {
  const handle = <T>(channel: string, pick: (win: BrowserWindow | null) => Promise<T>): void => {
    deps.ipcMain.handle(channel, async (event): Promise<ApiResult<T>> => {
      if (!deps.isTrustedSender(event)) {
        deps.warn(`refused ${channel} from an untrusted sender`);
        return FORBIDDEN;
      }
      try {
        return { ok: true, value: await pick(deps.windowOf(event)) };
      } catch (err) {
        return { ok: false, error: { code: 'internal', message: (err as Error).message } };
      }
    });
  };
  const open = (win: BrowserWindow | null, options: Electron.OpenDialogOptions) =>
    win ? deps.dialog.showOpenDialog(win, options) : deps.dialog.showOpenDialog(options);

  handle(IPC_PICK_IMPORT_FILES, async (win) => {
    const r = await open(win, {
      properties: ['openFile', 'multiSelections'],
      filters: [
        { name: 'Transcripts', extensions: [...IMPORT_EXTENSIONS] },
        { name: '*', extensions: ['*'] },
      ],
    });
    return r.canceled ? [] : r.filePaths;
  });
  handle(IPC_PICK_EXPORT_FOLDER, async (win) => {
    const r = await open(win, {
      properties: ['openDirectory', 'createDirectory'],
      defaultPath: deps.exportDir,
    });
    return r.canceled ? null : (r.filePaths[0] ?? null);
  });
  return () => {
    deps.ipcMain.removeHandler(IPC_PICK_IMPORT_FILES);
    deps.ipcMain.removeHandler(IPC_PICK_EXPORT_FOLDER);
  };
}
