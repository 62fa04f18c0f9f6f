/** How the agents that wrote tasks (tasks.db task_source) are named on screen. */
const AGENT_NAMES: Record<string, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  'openai-chat': 'OpenAI chat',
  'swe-agent': 'SWE-agent',
  gemini: 'Gemini CLI',
  'gemini-cli': 'Gemini CLI',
  cline: 'Cline',
  roo: 'Roo Code',
  openhands: 'OpenHands',
  aider: 'Aider',
};

/** The agent's name; '' is a task this app ran itself (`own`, in the UI's language). */
export function agentName(source: string, own: string): string {
  if (source === '') return own;
  return AGENT_NAMES[source] ?? source;
}
