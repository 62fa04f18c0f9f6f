/**
 * Child-process entry: `write-large-current-cli.ts <file> <bytes> <pad>` writes a large
 * current.jsonl, so the memory test's own process starts measuring from a clean heap.
 */
import { writeLargeCurrent } from './current-file';

const [file, bytes, pad] = process.argv.slice(2);
if (!file || !bytes || !pad) {
  process.stderr.write('usage: write-large-current-cli <file> <bytes> <pad>\n');
  process.exit(2);
}
process.stdout.write(`${writeLargeCurrent(file, Number(bytes), Number(pad))}\n`);
