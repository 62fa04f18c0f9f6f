import type { Page } from 'playwright-core';

/** Calls the workbench API from the page, with the session token the UI holds. */
export function callApi<T>(page: Page, name: string, body: unknown): Promise<T> {
  return page.evaluate(
    async ({ name, body }) => {
      const store = (globalThis as { sessionStorage?: { getItem(key: string): string | null } })
        .sessionStorage;
      const res = await fetch(`/api/${name}`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Bearer ${store?.getItem('cwb.token')}`,
        },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { ok: boolean; value?: unknown; error?: unknown };
      if (!json.ok) throw new Error(JSON.stringify(json.error));
      return json.value;
    },
    { name, body },
  ) as Promise<T>;
}
