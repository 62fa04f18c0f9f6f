/**
 * The config `cwb init` writes and the README shows. Every active line states a default,
 * so the file documents the settings without changing behaviour; the test keeps it
 * loadable and in step with the defaults.
 */
export const EXAMPLE_CONFIG_YAML = `# Context Workbench configuration.
# Other tools may keep their own top-level sections in this file; they are left alone.
# Any string value may use \${VAR} to read an environment variable (an unset one is an error).

# How task contexts are kept on disk.
context_storage:
  enabled: true                  # false = run tasks without recording contexts
  # base_dir: "contexts"         # where contexts live; relative to this file (default: the app's data folder)
  compression_threshold: 0.7     # compress when the context passes 70 % of the model's context_length
  keep_recent_messages: 5        # newest messages kept verbatim when compressing
  cleanup_days: 30               # completed tasks older than this are removed by cleanup
  durability: default            # "fsync" = flush every append to disk (slower, survives power loss)
  # summary_prompt: |            # prompt used to compress a conversation; {messages} marks the messages
  #   Summarize the conversation below ...
  #   {messages}

# Carrying a summary of the previous run into the next run of the same task.
context:
  inheritance:
    enabled: true
    max_summary_tokens: 4000     # longer summaries are cut
    expiry_days: 30              # older runs are not inherited

# The model tasks run with; it also writes summaries.
llm:
  provider: ollama               # openai, ollama or lmstudio
  openai:
    model: "gpt-4o"
    context_length: 128000
    # api_key: "\${OPENAI_API_KEY}"
    base_url: "https://api.openai.com/v1"
  ollama:
    # model: "qwen3:30b"         # a model you have pulled
    # context_length: 32768
    base_url: "http://127.0.0.1:11434"
  lmstudio:
    # model: "qwen3-30b"         # the model loaded in LM Studio
    # context_length: 32768
    base_url: "http://127.0.0.1:1234/v1"

# Tools the agent may use.
tools:
  run_command: false             # true lets the agent run shell commands
`;
