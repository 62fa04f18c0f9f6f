/** The agents whose sessions the workbench reads; stored in tasks.agent ('' = a task this app ran). */
export const AGENTS = [
  'claude-code',
  'codex',
  'gemini-cli',
  'openhands',
  'cline',
  'roo-code',
  'aider',
  'swe-agent',
  'openai',
  'opencode',
  'kilo',
  'copilot-cli',
  'cursor',
  'qwen-code',
  'crush',
  'amp',
  'pi',
  'openclaw',
  'goose',
  'continue',
  'zed',
  'droid',
] as const;
export type AgentId = (typeof AGENTS)[number];

/** Names shown to people (UI column and filter, CLI tables). */
export const AGENT_LABELS: Record<AgentId, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  'gemini-cli': 'Gemini CLI',
  openhands: 'OpenHands',
  cline: 'Cline',
  'roo-code': 'Roo Code',
  aider: 'Aider',
  'swe-agent': 'SWE-agent',
  openai: 'OpenAI chat',
  opencode: 'opencode',
  kilo: 'Kilo CLI',
  'copilot-cli': 'Copilot CLI',
  cursor: 'Cursor',
  'qwen-code': 'Qwen Code',
  crush: 'Crush',
  amp: 'Amp',
  pi: 'Pi',
  openclaw: 'OpenClaw',
  goose: 'Goose',
  continue: 'Continue',
  zed: 'Zed',
  droid: 'Factory Droid',
};

/** The agent's name; '' is a task this app ran itself (`own`, in the reader's language). */
export function agentLabel(agent: string, own: string): string {
  if (agent === '') return own;
  return (AGENT_LABELS as Record<string, string>)[agent] ?? agent;
}
