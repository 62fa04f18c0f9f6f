/** The web workbench host (`cwb serve`): plain node:http, no framework. */
export { startWebHost, type WebHost, type WebHostOptions } from './web-host';
export { resolveRendererRoot } from './renderer-root';
export { generateToken, tokensEqual, tokenCookieName } from './access-token';
export { isLoopback } from './allowed-hosts';
