import { createHash } from 'node:crypto';

/** One line of the crash tests: the sha lets a reader prove the pad arrived whole. */
export interface CrashLine {
  seq: number;
  pad: string;
  sha: string;
}

export function crashLine(seq: number, pad: string): CrashLine {
  return { seq, pad, sha: sha256(pad) };
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A pad both parent and child can compute; multi-byte so a half cut lands inside a character. */
export function fixedPad(seq: number): string {
  return `行${seq}😀`.repeat(50 + seq);
}

/** The exact bytes of line `seq` as AppendLog writes it, newline included. */
export function crashLineBytes(line: CrashLine): Buffer {
  return Buffer.from(`${JSON.stringify(line)}\n`, 'utf8');
}
