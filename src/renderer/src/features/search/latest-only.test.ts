import { describe, expect, it } from 'vitest';
import { latestOnly } from './latest-only';

/** A request whose answer the test releases when it wants. */
function controlled() {
  const sent: { input: string; resolve(v: string): void; reject(e: unknown): void }[] = [];
  const send = (input: string): Promise<string> =>
    new Promise((resolve, reject) => sent.push({ input, resolve, reject }));
  return { sent, send };
}
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

describe('latestOnly', () => {
  it('sends one at a time, skips the requests overtaken while waiting, and hands on only the newest answer', async () => {
    const { sent, send } = controlled();
    const answers: string[] = [];
    const runner = latestOnly(send, (r, input) => answers.push(r.ok ? `${input}=${r.value}` : 'x'));
    runner.run('a');
    runner.run('ab');
    runner.run('abc');
    expect(sent.map((s) => s.input)).toEqual(['a']);
    sent[0]!.resolve('1');
    await settle();
    // 'a' was overtaken: its answer is dropped; 'ab' never left; 'abc' goes now.
    expect(answers).toEqual([]);
    expect(sent.map((s) => s.input)).toEqual(['a', 'abc']);
    sent[1]!.resolve('3');
    await settle();
    expect(answers).toEqual(['abc=3']);
  });

  it('hands on an error of the newest request, and nothing after cancel', async () => {
    const { sent, send } = controlled();
    const answers: unknown[] = [];
    const runner = latestOnly(send, (r) => answers.push(r.ok ? r.value : r.error));
    runner.run('a');
    sent[0]!.reject(new Error('down'));
    await settle();
    expect(answers).toEqual([new Error('down')]);
    runner.run('b');
    runner.run('c');
    runner.cancel();
    sent[1]!.resolve('late');
    await settle();
    expect(answers).toHaveLength(1);
    expect(sent).toHaveLength(2);
  });
});
