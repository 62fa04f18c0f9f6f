import { contextBridge, ipcRenderer } from 'electron';
import { createDesktopApi } from './desktop-api';
import { createWindowApi } from './window-api';

// Sandboxed preload (built as CommonJS): window.api, built from the contract's operation names,
// and window.desktop, the file pickers only the desktop app has.
contextBridge.exposeInMainWorld('api', createWindowApi(ipcRenderer));
contextBridge.exposeInMainWorld('desktop', createDesktopApi(ipcRenderer));
