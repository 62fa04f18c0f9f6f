import type { IpcMainInvokeEvent } from 'electron';
import { isAllowedNavigation } from '../window-options';

/**
 * Whether an IPC call comes from the app itself: the main frame (not an iframe) of one of
 * the app's own windows, showing the app's own page. Anything else — a subframe, a page
 * that navigated away, a destroyed frame, another web contents — is refused.
 */
export function createSenderCheck(
  appUrl: string,
  ownContentsIds: () => readonly number[],
): (event: Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>) => boolean {
  return (event) => {
    const frame = event.senderFrame;
    if (!frame || frame.parent !== null) return false;
    if (!ownContentsIds().includes(event.sender.id)) return false;
    return isAllowedNavigation(frame.url, appUrl);
  };
}
