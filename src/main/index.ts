import { startMainProcess } from './main-process';

// Electron main process entry (out/main/index.js). See main-process.ts.
startMainProcess();
