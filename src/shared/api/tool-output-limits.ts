/** Apart from the zod schemas so the renderer's first view can use it without loading zod. */
export const MAX_TOOL_OUTPUT_LINES = 5000;
