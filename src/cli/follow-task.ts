import type { TaskProgress, WorkerEvent } from '../shared/worker-protocol';
import type { TaskSupervisor, WorkerExit } from '../core/supervisor/task-supervisor';
import { formatCount } from './output';
import type { Output } from './output';

export interface FollowResult {
  exit: WorkerExit;
  error: string | undefined;
  progress: TaskProgress | undefined;
}

/**
 * Follows one task process to its end on a live status line (turns, tokens, context %).
 * On a terminal the line is redrawn in place on stderr; elsewhere one line per step.
 * Ctrl-C asks the task to pause after its current step; a second Ctrl-C stops it.
 */
export async function followTask(
  supervisor: TaskSupervisor,
  uuid: string,
  output: Output,
  live: boolean,
): Promise<FollowResult> {
  const tty = live && process.stderr.isTTY === true;
  let progress: TaskProgress | undefined;
  let error: string | undefined;
  let interrupts = 0;
  // Progress is for a person watching: redrawn on one line of a terminal, and left out of a
  // pipe or a log file (a line per step would drown what a script reads from stderr).
  const draw = (text: string, evenInPipe = false): void => {
    if (!live) return;
    if (tty) process.stderr.write(`\r\x1b[K${text}`);
    else if (evenInPipe) output.err(text);
  };
  const onEvent = (event: WorkerEvent): void => {
    if (event.uuid !== uuid) return;
    if (event.type === 'stats') {
      progress = event.progress;
      draw(statusLine(event.progress));
    } else if (event.type === 'notice') {
      if (tty) process.stderr.write('\r\x1b[K');
      if (live) output.err(event.text);
    } else if (event.type === 'compaction-finished') {
      draw(
        `compacted: ${formatCount(event.tokensBefore)} → ${formatCount(event.tokensAfter)} tokens`,
      );
    } else if (event.type === 'error') {
      error = event.message;
    } else if (event.type === 'status' && event.error) {
      error = event.error;
    }
  };
  const onSigint = (): void => {
    interrupts++;
    if (interrupts === 1) {
      draw('pausing after the current step… (Ctrl-C again to stop now)', true);
      supervisor.pause(uuid);
    } else {
      supervisor.stop(uuid);
    }
  };
  supervisor.on('event', onEvent);
  process.on('SIGINT', onSigint);
  try {
    const exit = (await supervisor.waitForExit(uuid))!;
    if (tty) process.stderr.write('\r\x1b[K');
    return { exit, error, progress };
  } finally {
    supervisor.off('event', onEvent);
    process.off('SIGINT', onSigint);
  }
}

export function statusLine(p: TaskProgress): string {
  const pct = p.contextWindow > 0 ? Math.round((100 * p.contextTokens) / p.contextWindow) : 0;
  return `turn ${p.turns}/${p.maxTurns} · ${p.toolCalls} tool calls · ${formatCount(p.totalTokens)} tokens used · context ${formatCount(p.contextTokens)}/${formatCount(p.contextWindow)} (${pct}%)`;
}
