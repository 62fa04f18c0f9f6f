import { contextBridge } from 'electron';

// Sandboxed preload (built as CommonJS): builds window.api. The full typed contract from
// src/shared arrives with the IPC layer.
contextBridge.exposeInMainWorld('api', {
  appInfo: () => ({ name: 'Context Workbench', transport: 'electron' }) as const,
});
