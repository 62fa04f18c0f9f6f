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

# Making a context shorter when it grows too long: the strategies of pipeline run in order.
# Strategies: summarize, retain-summary, tool-output-trim, importance-window, condense,
# truncate, extractive, observation-mask. summarize reads context_storage above (compression_threshold,
# keep_recent_messages, summary_prompt); the others are set here.
compaction:
  enabled: true                  # false = never compact, not even on request
  auto: true                     # false = compact only on request
  thresholdRatio: 0.8            # compact automatically at 80 % of the model's context window
  # model: "gpt-4o-mini"         # model that writes summaries (default: the task's own model)
  # summaryPrompt: |             # retain-summary's prompt (default: the built-in one, answer in <summary>)
  #   Summarize the conversation so far ...
  summaryDirectives: []          # extra instructions appended to the summary prompt, e.g. ["Keep file paths"]
  # retainPrompt: |              # what to list in <retain> (default: the built-in instruction)
  #   List what must survive: output refs, decisions ...
  retainDirectives: []           # extra instructions appended to the retain instruction
  retainLastTurns: 1             # newest turns retain-summary keeps verbatim
  pipeline: [tool-output-trim, summarize]
  importance_window:             # the newest messages plus the important older ones
    max_messages: 24
    recent_ratio: 0.4            # share of the newest messages always kept
    max_text_chars: 1000         # longer strings in outputs are cut
    max_data_chars: 2000         # longer data fields are cut
    max_ui_nodes: 200            # UI/DOM trees: nodes, depth and children per node kept
    max_ui_depth: 2
    max_ui_children: 20
    noisy_fields: [description, help]  # fields dropped from JSON outputs
  condense:                      # summary that hides messages without deleting them; falls back to truncate
    threshold_percent: 100       # condense at this % of the context window (5-100); 100 = only the buffer rule
    keep_messages: 3             # newest messages always kept
    token_buffer_ratio: 0.1      # share of the context window kept free
  truncate:
    fraction: 0.5                # share of the messages after the first that is hidden
  observation_mask:              # old tool outputs become refs; every call and message stays
    keep_turns: 10               # tool outputs of the newest turns stay whole
  fact_ledger:                   # paths, commands, errors, numbers, names every summary keeps
    max_tokens: 6000             # at most this many tokens (0 = no ledger)
    share: 0.07                  # and at most this share of the messages it replaces
    context_share: 0.1           # a summary's whole new context: at most this share of the context before (0 = no cap)

# Large tool outputs: kept in full on disk, cut down in the context, readable again by reference.
tool_output_cache:
  enabled: true
  # contextBudgetTokens: 40000   # tokens of tool output in the context (default: 25 % of the context window, 20000 to 60000)
  maxMessageBytes: 51200         # one output is cut after 50 KiB
  maxLineLength: 2000            # each line is cut after this many characters

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
  # Commands get PATH, HOME, the locale and a few more (docs/reliability.md, Secrets), never
  # a key. Name other variables they need here (never a key or token: refused).
  # env_passthrough: [HTTPS_PROXY, NO_PROXY]
`;
