/**
 * Child process for the crash tests; the parent kills it with SIGKILL.
 *   random <file>      append lines with random pads forever
 *   half <file> <n>    append n lines, then the first half of line n + 1, print "ready", wait
 *   indexed <file> <n> append n lines and their offset-index entries (some still in memory),
 *                      print "ready", wait
 */
import { randomBytes, randomInt } from 'node:crypto';
import fs from 'node:fs';
import { AppendLog, appendJsonLine } from '../append-log';
import { OffsetIndex } from '../offset-index';
import { crashLine, crashLineBytes, fixedPad } from './crash-lines';

const [mode, file, count] = process.argv.slice(2);

function appendForever(path: string): never {
  const log = new AppendLog(path);
  for (let seq = 1; ; seq++) {
    const length = randomInt(0, 200_001);
    const pad = randomBytes(Math.ceil(length / 2))
      .toString('hex')
      .slice(0, length);
    appendJsonLine(log, crashLine(seq, pad));
  }
}

function appendThenTear(path: string, lines: number): void {
  const log = new AppendLog(path);
  for (let seq = 1; seq <= lines; seq++) appendJsonLine(log, crashLine(seq, fixedPad(seq)));
  log.close();
  const torn = crashLineBytes(crashLine(lines + 1, fixedPad(lines + 1)));
  const fd = fs.openSync(path, 'a');
  fs.writeSync(fd, torn, 0, Math.floor(torn.length / 2));
  process.stdout.write('ready\n');
  // Keep the process alive until the parent kills it.
  setInterval(() => undefined, 60_000);
}

function appendIndexed(path: string, lines: number): void {
  const index = OffsetIndex.open(path);
  const log = new AppendLog(path);
  for (let seq = 1; seq <= lines; seq++) {
    index.append(appendJsonLine(log, crashLine(seq, fixedPad(seq))).offset);
  }
  // Neither is closed: the entries not yet written die with the process.
  process.stdout.write('ready\n');
  setInterval(() => undefined, 60_000);
}

if (mode === 'random' && file) appendForever(file);
else if (mode === 'indexed' && file && count) appendIndexed(file, Number(count));
else if (mode === 'half' && file && count) appendThenTear(file, Number(count));
else {
  process.stderr.write(
    'usage: append-child (random <file> | half <file> <n> | indexed <file> <n>)\n',
  );
  process.exit(2);
}
