const STORAGE_KEY = 'cwb.token';

/**
 * The access token `cwb serve` printed in the URL (`?token=...`): kept for this tab's
 * session and removed from the address bar, so it does not linger in history or get
 * copied along with the URL.
 */
export function takeSessionToken(
  location: Pick<Location, 'href'>,
  history: Pick<History, 'replaceState' | 'state'>,
  storage: Pick<Storage, 'getItem' | 'setItem'>,
): string | null {
  const url = new URL(location.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl) {
    try {
      storage.setItem(STORAGE_KEY, fromUrl);
    } catch {
      // Storage can be unavailable (privacy modes); the cookie still carries the session.
    }
    url.searchParams.delete('token');
    history.replaceState(history.state, '', `${url.pathname}${url.search}${url.hash}`);
    return fromUrl;
  }
  try {
    return storage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}
