/**
 * A fleet host with one running task, for the lease benchmark (bench/groups/fleet.ts):
 * opens ROOT on the PostgreSQL index as host HOST with a lease of LEASE_MS, creates a task
 * with MESSAGES messages, prints "ready UUID" and keeps its lease renewed until killed.
 *
 * Usage: fleet-host.ts ROOT HOST LEASE_MS MESSAGES   (CWB_INDEX_URL names the index)
 */
import { ContextStore } from '../../src/core/store/context-store';

const [root, host, leaseText, messagesText] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
];
const store = ContextStore.open(root, { host, leaseMs: Number(leaseText) });
const task = store.createTask({ title: 'long job' });
for (let i = 0; i < Number(messagesText); i++) {
  task.addMessage({ role: i % 2 ? 'assistant' : 'user', content: `step ${i}` });
}
process.stdout.write(`ready ${task.uuid}\n`);
// The store's heartbeat timer does not keep a process alive: this does, until the kill.
setInterval(() => {}, 1 << 30);
