/**
 * A thread of write-gate.test.ts: joins the gate, then, holding it, says so and counts to
 * `marks` in the shared slot 1 of `flags`, a millisecond apart, before letting go.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { gated, joinWriteGate } from '../write-gate';

const { gate, flags, marks } = workerData as {
  gate: SharedArrayBuffer;
  flags: SharedArrayBuffer;
  marks: number;
};
joinWriteGate(gate);
const shared = new Int32Array(flags);
gated(() => {
  parentPort?.postMessage('holding');
  for (let i = 0; i < marks; i++) {
    Atomics.wait(shared, 0, 0, 1);
    Atomics.add(shared, 1, 1);
  }
});
parentPort?.postMessage('released');
