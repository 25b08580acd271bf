// Preloaded into the MCP conformance suite (`node --import ./bearer.mjs dist/index.js server ...`):
// the suite has no option for credentials, and Herald's /mcp answers 401 without an OAuth access
// token. Adds `Authorization: Bearer $MCP_CONFORMANCE_BEARER` to every request the suite sends,
// through each of the three HTTP clients its scenarios use: global fetch (the SDK client and most
// scenarios), node:http (the header-validation scenarios) and undici's request (DNS rebinding).
import http from "node:http";
import { createRequire, syncBuiltinESMExports } from "node:module";

const token = process.env.MCP_CONFORMANCE_BEARER;
if (!token) {
  throw new Error("bearer.mjs: set MCP_CONFORMANCE_BEARER to an access token");
}
const credential = `Bearer ${token}`;

/** The same headers plus Authorization, unless the caller set one (in any header shape). */
function withBearer(headers) {
  if (headers == null) {
    return { Authorization: credential };
  }
  if (headers instanceof Headers) {
    const copy = new Headers(headers);
    if (!copy.has("authorization")) copy.set("Authorization", credential);
    return copy;
  }
  const names = Array.isArray(headers) ? headers.map(([name]) => name) : Object.keys(headers);
  if (names.some((name) => name.toLowerCase() === "authorization")) {
    return headers;
  }
  return Array.isArray(headers) ? [...headers, ["Authorization", credential]] : { ...headers, Authorization: credential };
}

const originalFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const request = new Request(input, init);
  if (!request.headers.has("authorization")) {
    request.headers.set("Authorization", credential);
  }
  return originalFetch(request);
};

// http.request(url[, options][, callback]) or http.request(options[, callback]). The suite imports
// node:http's default export, so replacing the property is enough; syncBuiltinESMExports() also
// updates the named export for anyone importing { request }.
const originalRequest = http.request;
http.request = (...args) => {
  const at = typeof args[0] === "string" || args[0] instanceof URL ? 1 : 0;
  if (args[at] != null && typeof args[at] === "object") {
    args[at] = { ...args[at], headers: withBearer(args[at].headers) };
  } else {
    args.splice(at, 0, { headers: withBearer(undefined) });
  }
  return originalRequest(...args);
};
syncBuiltinESMExports();

// undici is CommonJS: an ESM `import { request } from "undici"` reads module.exports from the
// require cache, so patching the module resolved from the suite's own entry point (argv[1])
// before it loads is what the suite then imports.
const undici = createRequire(process.argv[1])("undici");
const originalUndiciRequest = undici.request;
undici.request = (url, options = {}) => originalUndiciRequest(url, { ...options, headers: withBearer(options.headers) });
