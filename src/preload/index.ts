import { contextBridge, ipcRenderer } from 'electron';
import { createWindowApi } from './window-api';

// Sandboxed preload (built as CommonJS): window.api, built from the contract's operation names.
contextBridge.exposeInMainWorld('api', createWindowApi(ipcRenderer));
