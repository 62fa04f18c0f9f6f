import type { LlmProvider } from '../config/app-config';
import type { HttpResponse } from './http-post-file';
import { parseBodyJson } from './llm-response';
import type { DeltaListener, LlmResponse } from './llm-response';
import { ollamaJsonResponse, readOllamaStream } from './ollama-response';
import { openAiJsonResponse, readOpenAiStream } from './openai-response';
import { readBodyText } from './stream-lines';

/**
 * A successful response's answer, in whichever form the server chose: the content type
 * decides, not what was asked for, because some servers ignore `stream`.
 */
export async function readAnswer(
  provider: LlmProvider,
  res: HttpResponse,
  onDelta: DeltaListener,
): Promise<LlmResponse> {
  const type = String(res.headers['content-type'] ?? '').toLowerCase();
  try {
    if (provider === 'ollama') {
      // Ollama streams application/x-ndjson; a one-object NDJSON body parses the same way.
      if (!type.includes('application/json')) return await readOllamaStream(res.body, onDelta);
      return whole(ollamaJsonResponse(await readJson(res)), onDelta);
    }
    if (type.includes('text/event-stream')) return await readOpenAiStream(res.body, onDelta);
    return whole(openAiJsonResponse(await readJson(res)), onDelta);
  } finally {
    // Stopping at [DONE] or `done: true` leaves the body open; this frees the connection.
    res.body.destroy();
  }
}

async function readJson(res: HttpResponse): Promise<unknown> {
  return parseBodyJson(await readBodyText(res.body), 'the answer');
}

/** A non-streamed answer reaches onDelta in one piece, so live views still show it. */
function whole(response: LlmResponse, onDelta: DeltaListener): LlmResponse {
  if (response.content) onDelta(response.content);
  return response;
}
