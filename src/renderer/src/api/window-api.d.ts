import type { DesktopApi } from '../../../shared/api/desktop-api';
import type { WindowApi } from '../../../shared/api/workbench-api';

declare global {
  interface Window {
    /** Set by the desktop app's preload; absent in a browser. */
    api?: WindowApi;
    /** The desktop app's file pickers (its preload); absent in a browser. */
    desktop?: DesktopApi;
  }
}
