/**
 * A task process for the append fault test: resumes a paused task and appends messages
 * until it is killed. Each content carries its own sha256; after each append returns it
 * prints `ack <seq>` (with write(2), see child-io.ts), so the parent knows a
 * lower bound of what must survive.
 * Usage: fault-appender.ts ROOT UUID MAX_WORDS
 * Fault hooks (test/support/fault-hooks.ts) apply when their variables are set.
 */
import './fault-hooks';
import { say } from './child-io';
import { ContextStore } from '../../src/core/store/context-store';
import { checkedContent } from './checked-content';

const [root, uuid, maxWords] = process.argv.slice(2);
const store = ContextStore.open(root!);
const task = store.resumeTask(uuid!);
const limit = Number(maxWords ?? '2000');
say(`ready ${task.messages.count}`);
for (let i = 1; ; i++) {
  // Mostly short lines, now and then a long one (up to ~limit words), so kills land in
  // writes of every size.
  const words =
    i % 5 === 0 ? Math.floor(Math.random() * limit) : 1 + Math.floor(Math.random() * 40);
  const record = task.addMessage({
    role: i % 2 ? 'user' : 'assistant',
    content: checkedContent(i, words),
  });
  say(`ack ${record.seq}`);
}
