import type { WindowApi } from '../../../shared/api/workbench-api';

declare global {
  interface Window {
    /** Set by the desktop app's preload; absent in a browser. */
    api?: WindowApi;
  }
}
