/**
 * Prompts for compressing a conversation (seed 000 §7.3). The Japanese one is the seed's
 * text verbatim; the English one asks for the same four points. `{messages}` marks where
 * the formatted messages go.
 */

export const MESSAGES_PLACEHOLDER = '{messages}';

export const SUMMARY_PROMPT_JA = `あなたは会話履歴を要約するアシスタントです。
以下のメッセージ履歴を簡潔かつ包括的に要約してください。

要約には以下を含めてください：
1. 重要な決定事項
2. 実施したコード変更
3. 発生した問題とその解決
4. 残存タスク

元の30-40%の長さを目標としてください。

=== 要約対象メッセージ ===
{messages}

要約のみを出力してください。
`;

export const SUMMARY_PROMPT_EN = `You are an assistant that summarizes conversation histories.
Summarize the message history below concisely but comprehensively.

Include in the summary:
1. Important decisions made
2. Code changes carried out
3. Problems encountered and how they were solved
4. Remaining tasks

Aim for 30-40% of the original length.

=== Messages to summarize ===
{messages}

Output only the summary.
`;

/**
 * Text before and after `{messages}`, so a summary request can be written as head,
 * streamed messages, tail without holding the messages in memory. A prompt without the
 * placeholder gets the messages appended, as in seed 000 §7.2 where the request is the
 * prompt file followed by the formatted messages.
 */
export function splitSummaryPrompt(prompt: string): { before: string; after: string } {
  const at = prompt.indexOf(MESSAGES_PLACEHOLDER);
  if (at < 0) return { before: prompt.endsWith('\n') ? prompt : `${prompt}\n`, after: '' };
  return { before: prompt.slice(0, at), after: prompt.slice(at + MESSAGES_PLACEHOLDER.length) };
}
