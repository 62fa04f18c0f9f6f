/** The version `cwb --version` prints and exports name in their footer. */
export const CLI_VERSION = '0.1.0';
