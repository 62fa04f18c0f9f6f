import type { ViewEntry } from './view';

/**
 * seed 000 §7.2 step 4: messages as `[role]: content` lines for a summary prompt. Tool calls
 * are written out so the summary can mention what was run.
 */
export function formatEntries(entries: readonly ViewEntry[]): string {
  return entries.map(formatEntry).join('\n');
}

export function formatEntry(entry: ViewEntry): string {
  const m = entry.message;
  const who = m.role === 'tool' && m.tool_name ? `tool ${m.tool_name}` : m.role;
  const calls = (m.tool_calls ?? [])
    .map((c) => `\n  → ${c.function.name}(${c.function.arguments})`)
    .join('');
  return `[${who}]: ${m.content ?? ''}${calls}`;
}

/** Fills a prompt's `{messages}` placeholder; a prompt without one gets the messages appended. */
export function fillPrompt(prompt: string, messages: string): string {
  return prompt.includes('{messages}')
    ? prompt.split('{messages}').join(messages)
    : `${prompt}\n\n${messages}`;
}

/** Leading system messages (kept by every strategy) and the rest of the view. */
export function splitSystem(view: readonly ViewEntry[]): {
  system: ViewEntry[];
  rest: ViewEntry[];
} {
  let i = 0;
  while (i < view.length && view[i]!.message.role === 'system') i++;
  return { system: view.slice(0, i), rest: view.slice(i) };
}
