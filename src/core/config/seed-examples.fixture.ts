/**
 * The config.yaml examples of the seeds, verbatim: seed 000 §9.1 and seed 001 §13.1.
 * Test data only.
 */

export const SEED_000_EXAMPLE = `# コンテキストストレージ設定
context_storage:
  enabled: true                    # コンテキストファイル化を有効化
  base_dir: "contexts"             # ベースディレクトリ
  compression_threshold: 0.7       # 圧縮開始閾値（70%）
  keep_recent_messages: 5          # 圧縮時に保持する最新メッセージ数
  cleanup_days: 30                 # 完了タスクのクリーンアップ日数
  
  # 要約プロンプト（config.yamlに記述）
  summary_prompt: |
    あなたは会話履歴を要約するアシスタントです。
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

# LLM設定（既存）にcontext_lengthを追加
llm:
  provider: "openai"
  openai:
    model: "gpt-4o"
    context_length: 128000         # モデルのコンテキスト長
    api_key: "\${OPENAI_API_KEY}"
    base_url: "https://api.openai.com/"
  ollama:
    model: "qwen3-30b"
    context_length: 32768          # モデルのコンテキスト長
`;

export const SEED_001_EXAMPLE = `context:
  # コンテキストベースディレクトリ
  base_dir: "contexts"
  
  # コンテキスト圧縮設定
  compression:
    token_threshold: 8000      # 圧縮トリガーのトークン数
    keep_recent: 10            # 圧縮時に保持する最近のメッセージ数
    min_to_compress: 5         # 圧縮する最小メッセージ数
  
  # コンテキスト継承設定
  inheritance:
    enabled: true                    # コンテキスト継承を有効化
    max_summary_tokens: 4000         # 継承要約の最大トークン数
`;
