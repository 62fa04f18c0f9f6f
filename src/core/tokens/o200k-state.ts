/**
 * Whether this process has loaded the o200k tables (~26 MiB of heap). A task process must
 * not, unless someone asks for exact counts while it runs; tests check it here.
 */
let loaded = false;

export function noteO200kLoaded(): void {
  loaded = true;
}

export function o200kLoaded(): boolean {
  return loaded;
}
