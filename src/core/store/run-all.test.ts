import { describe, expect, it } from 'vitest';
import { runAll } from './run-all';

describe('runAll', () => {
  it('runs every step although some throw, then throws the first failure', () => {
    const ran: number[] = [];
    expect(() =>
      runAll([
        () => ran.push(1),
        () => {
          ran.push(2);
          throw new Error('first');
        },
        () => {
          ran.push(3);
          throw new Error('second');
        },
        () => ran.push(4),
      ]),
    ).toThrow('first');
    expect(ran).toEqual([1, 2, 3, 4]);
  });
});
