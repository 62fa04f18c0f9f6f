/**
 * The environment a task process, and every child a tool starts, is given: an allow-list,
 * not a deny-list. A deny-list (drop `*_API_KEY`, `*_TOKEN`, …) misses the key kept under a
 * name nobody guessed; with an allow-list a secret gets in only if someone names it here.
 *
 * Each name and why a task process or a command it runs needs it:
 * - PATH: commands are found through it (run_command's shell, and what that shell runs).
 * - HOME, USER, LOGNAME, SHELL: who and where the user is; git, npm, ssh and `~` use them,
 *   and Node's os.homedir() / os.userInfo() read HOME first.
 * - LANG, LANGUAGE, LC_*: the locale, so commands read and print UTF-8 as in the user's shell.
 * - TZ: the user's time zone for commands that print local times.
 * - TMPDIR (TEMP, TMP on Windows): where os.tmpdir() puts run_command's output capture and
 *   request files of one-shot prompts.
 * - TERM, COLORTERM, NO_COLOR, FORCE_COLOR: how commands format their output.
 * - XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_STATE_HOME, XDG_CACHE_HOME, XDG_RUNTIME_DIR: where
 *   tools the user runs keep their files (and where cwb's own config.yaml is found).
 * - MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_: the task process's memory settings, which the
 *   user may set themselves (task-process-flags.ts).
 * - Windows: SYSTEMROOT, WINDIR, COMSPEC, PATHEXT, SYSTEMDRIVE, PROGRAMDATA, PROGRAMFILES,
 *   PROGRAMFILES(X86), COMMONPROGRAMFILES, USERPROFILE, USERNAME, USERDOMAIN, HOMEDRIVE,
 *   HOMEPATH, APPDATA, LOCALAPPDATA, NUMBER_OF_PROCESSORS, PROCESSOR_ARCHITECTURE, OS:
 *   Node and cmd.exe do not start, or find nothing, without them.
 *
 * Left out on purpose: NODE_OPTIONS (it would load code into every task process, and a
 * task process is started with exactly the flags it needs), proxy variables (their URLs
 * often carry a password; `tools.env_passthrough` brings them back for commands that need
 * them), and every secret.
 */
const ALLOWED_NAMES = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'TEMP',
  'TMP',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'FORCE_COLOR',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
  'XDG_CACHE_HOME',
  'XDG_RUNTIME_DIR',
  'MALLOC_ARENA_MAX',
  'MALLOC_MMAP_THRESHOLD_',
  'SYSTEMROOT',
  'WINDIR',
  'COMSPEC',
  'PATHEXT',
  'SYSTEMDRIVE',
  'PROGRAMDATA',
  'PROGRAMFILES',
  'PROGRAMFILES(X86)',
  'COMMONPROGRAMFILES',
  'USERPROFILE',
  'USERNAME',
  'USERDOMAIN',
  'HOMEDRIVE',
  'HOMEPATH',
  'APPDATA',
  'LOCALAPPDATA',
  'NUMBER_OF_PROCESSORS',
  'PROCESSOR_ARCHITECTURE',
  'OS',
]);

/** Whether `name` is on the allow-list (compared upper-case: Windows names ignore case). */
export function isAllowedEnvName(name: string): boolean {
  const upper = name.toUpperCase();
  return ALLOWED_NAMES.has(upper) || upper.startsWith('LC_');
}

/** The variables of `env` on the allow-list, and nothing else. */
export function allowListedEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && isAllowedEnvName(name)) out[name] = value;
  }
  return out;
}
