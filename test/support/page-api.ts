import type { Locator, Page } from 'playwright-core';

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

/**
 * Opens the workbench at the URL `cwb serve` printed and waits until the UI has moved the
 * token from the address into its session (what callApi sends).
 */
export async function openWithSession(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForFunction(
    () =>
      (
        globalThis as { sessionStorage?: { getItem(key: string): string | null } }
      ).sessionStorage?.getItem('cwb.token') != null,
    null,
    { timeout: 30_000 },
  );
}

/** In the pipeline picker (`.cmp-controls`), replaces every step with `strategy` alone. */
export async function pickOnlyStrategy(controls: Locator, strategy: string): Promise<void> {
  const steps = controls.locator('.cmp-step');
  while ((await steps.count()) > 0)
    await steps
      .first()
      .getByRole('button', { name: /^Remove / })
      .click();
  await controls.locator('#cmp-add-strategy').selectOption(strategy);
  await controls.getByRole('button', { name: 'Add', exact: true }).click();
}
