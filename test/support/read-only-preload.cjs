/**
 * Loaded into the built task process with `--require` (test/reliability/read-only-disk),
 * and installed in the test's own process (the host) too: while the file
 * CWB_TEST_READ_ONLY_SWITCH exists, every call that would change a file under
 * CWB_TEST_READ_ONLY_ROOT fails with EROFS, as when the kernel remounts a disk read-only
 * after an I/O error (`errors=remount-ro`) while files are open — which a test cannot do
 * with mount(8): a remount to read-only is refused while a file is open for writing. The
 * task process creates the switch after its n-th write to a messages.jsonl
 * (CWB_TEST_READ_ONLY_AFTER); the test removes it to make the folder writable again.
 * tasks.db (SQLite, native code) stays writable, like a database on another disk.
 * Plain CommonJS so node can preload it without a TypeScript loader.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS, preloaded with node --require */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const envRoot = process.env.CWB_TEST_READ_ONLY_ROOT;
const envSwitch = process.env.CWB_TEST_READ_ONLY_SWITCH;
if (envRoot && envSwitch)
  install(envRoot, envSwitch, Number(process.env.CWB_TEST_READ_ONLY_AFTER ?? 'NaN'));

module.exports = { install };

/** Returns a function that removes the hooks. */
function install(rootDir, switchFile, after) {
  const root = path.resolve(rootDir);
  const exists = fs.existsSync;
  const restore = [];
  const replace = (object, name, fn) => {
    const real = object[name];
    restore.push(() => {
      object[name] = real;
    });
    object[name] = fn(real);
  };
  let writes = 0;
  const isReadOnly = () => exists(switchFile);
  const inRoot = (p) => {
    if (typeof p !== 'string' && !(p instanceof URL) && !Buffer.isBuffer(p)) return false;
    const full = path.resolve(String(p instanceof URL ? p.pathname : p));
    return full === root || full.startsWith(root + path.sep);
  };
  const fdPath = (fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return '';
    }
  };
  const erofs = (syscall, p) => {
    const err = new Error(`EROFS: read-only file system, ${syscall} '${p}'`);
    err.code = 'EROFS';
    err.errno = -30;
    err.syscall = syscall;
    err.path = String(p);
    return err;
  };
  const writing = (flags) =>
    typeof flags === 'number'
      ? (flags & (fs.constants.O_WRONLY | fs.constants.O_RDWR | fs.constants.O_CREAT)) !== 0
      : typeof flags === 'string' && /[wa+]/.test(flags);

  replace(
    fs,
    'writeSync',
    (real) =>
      function (fd, ...rest) {
        const p = fdPath(fd);
        if (inRoot(p) && isReadOnly()) throw erofs('write', p);
        const n = real.call(fs, fd, ...rest);
        if (inRoot(p) && path.basename(p) === 'messages.jsonl' && ++writes === after)
          fs.writeFileSync(switchFile, '');
        return n;
      },
  );
  const guardPath = (name, syscall, pick = (args) => args[0]) =>
    replace(
      fs,
      name,
      (real) =>
        function (...args) {
          const p = pick(args);
          if (inRoot(p) && isReadOnly()) throw erofs(syscall, p);
          return real.apply(fs, args);
        },
    );
  replace(
    fs,
    'openSync',
    (real) =>
      function (p, flags, ...rest) {
        if (inRoot(p) && writing(flags) && isReadOnly()) throw erofs('open', p);
        return real.call(fs, p, flags, ...rest);
      },
  );
  replace(
    fs,
    'open',
    (real) =>
      function (p, flags, ...rest) {
        if (inRoot(p) && writing(flags) && isReadOnly()) {
          const cb = rest.at(-1);
          const err = erofs('open', p);
          if (typeof cb === 'function') return process.nextTick(cb, err);
          throw err;
        }
        return real.call(fs, p, flags, ...rest);
      },
  );
  for (const [name, syscall] of [
    ['renameSync', 'rename'],
    ['mkdirSync', 'mkdir'],
    ['rmSync', 'rm'],
    ['unlinkSync', 'unlink'],
    ['rmdirSync', 'rmdir'],
    ['writeFileSync', 'open'],
    ['appendFileSync', 'open'],
    ['copyFileSync', 'copyfile'],
    ['truncateSync', 'truncate'],
  ])
    guardPath(name, syscall, name === 'copyFileSync' ? (a) => a[1] : undefined);
  replace(
    fs,
    'ftruncateSync',
    (real) =>
      function (fd, ...rest) {
        const p = fdPath(fd);
        if (inRoot(p) && isReadOnly()) throw erofs('ftruncate', p);
        return real.call(fs, fd, ...rest);
      },
  );
  const promises = fs.promises;
  const guardPromise = (name, syscall, test = () => true) =>
    replace(
      promises,
      name,
      (real) =>
        async function (...args) {
          const p = name === 'copyFile' ? args[1] : args[0];
          if (inRoot(p) && test(args) && isReadOnly()) throw erofs(syscall, p);
          return real.apply(promises, args);
        },
    );
  guardPromise('open', 'open', (args) => writing(args[1]));
  for (const [name, syscall] of [
    ['rename', 'rename'],
    ['mkdir', 'mkdir'],
    ['rm', 'rm'],
    ['unlink', 'unlink'],
    ['writeFile', 'open'],
    ['appendFile', 'open'],
    ['copyFile', 'copyfile'],
    ['truncate', 'truncate'],
    ['mkdtemp', 'mkdtemp'],
  ])
    guardPromise(name, syscall);
  return () => {
    for (const undo of restore.splice(0).reverse()) undo();
  };
}
