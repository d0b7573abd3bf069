// The /api/* proxy's rules, kept pure so they are tested without a server.

import { readConfig } from "./config";

/** Request headers the browser may pass on; everything else (Authorization, Cookie, X-Precedente-*) stays here. */
const FORWARDED_REQUEST_HEADERS = ["accept", "accept-language", "content-type", "if-none-match", "if-modified-since", "range"];

/** Response headers passed back to the browser. */
const FORWARDED_RESPONSE_HEADERS = ["content-type", "content-disposition", "cache-control", "etag", "last-modified", "retry-after"];

const SEGMENT = /^[A-Za-z0-9._~-]+$/;

/**
 * Headers for the search service: an allow-list from the browser, then the session's bearer token.
 * The only credential the API sees is the one from the HttpOnly cookie: a script on the page, or another
 * site, cannot choose who the request is made as by sending its own Authorization or X-Precedente-* header.
 */
export function upstreamHeaders(incoming: Headers, token: string | undefined): Headers {
  const headers = new Headers();
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = incoming.get(name);
    if (value !== null) headers.set(name, value);
  }
  if (token) headers.set("authorization", `Bearer ${token}`);
  // W3C trace context: the search service's span continues the caller's trace, or starts one here.
  const parent = traceparent(incoming.get("traceparent"));
  headers.set("traceparent", parent.value);
  const state = incoming.get("tracestate");
  if (parent.continued && state !== null && state.length <= 512) headers.set("tracestate", state);
  return headers;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

function randomHex(bytes: number): string {
  const buffer = new Uint8Array(bytes);
  do crypto.getRandomValues(buffer);
  while (buffer.every((b) => b === 0));
  return Array.from(buffer, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The caller's traceparent when it is a valid one (version 00, non-zero ids), else a new sampled trace. */
export function traceparent(incoming: string | null): { value: string; continued: boolean } {
  const match = TRACEPARENT.exec(incoming?.trim() ?? "");
  if (match && !/^0+$/.test(match[1]!) && !/^0+$/.test(match[2]!)) return { value: match[0], continued: true };
  return { value: `00-${randomHex(16)}-${randomHex(8)}-01`, continued: false };
}

/** The search service's URL for /api/<segments>?<search>, or null for a path that is not a plain one. */
export function upstreamUrl(apiUrl: string, segments: readonly string[], search: string): string | null {
  if (segments.length === 0) return null;
  for (const segment of segments) {
    if (!SEGMENT.test(segment) || segment === "." || segment === "..") return null;
  }
  const query = search && search !== "?" ? (search.startsWith("?") ? search : `?${search}`) : "";
  return `${apiUrl}/${segments.join("/")}${query}`;
}

/** Types the browser may show in place; an original of any other type (HTML, SVG...) is only downloaded. */
const INLINE_TYPES = new Set([
  "application/pdf",
  "application/json",
  "application/problem+json", // the API's errors (RFC 9457)
  "image/png",
  "image/jpeg",
  "text/plain",
]);

export function downstreamHeaders(upstream: Headers): Headers {
  const headers = new Headers();
  for (const name of FORWARDED_RESPONSE_HEADERS) {
    const value = upstream.get(name);
    if (value !== null) headers.set(name, value);
  }
  if (!headers.has("cache-control")) headers.set("cache-control", "private, no-store");
  // An uploaded file's type is whatever the uploader said: rendered here, an HTML file would run its
  // scripts on this origin, as the user who opened it. Such a file becomes an opaque download.
  const type = (headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (headers.has("content-type") && !INLINE_TYPES.has(type)) {
    headers.set("content-type", "application/octet-stream");
    const disposition = headers.get("content-disposition");
    headers.set("content-disposition", disposition ? disposition.replace(/^\s*inline\b/i, "attachment") : "attachment");
    if (!/^attachment\b/i.test(headers.get("content-disposition") ?? "")) headers.set("content-disposition", "attachment");
  }
  return headers;
}

/** A browser navigating to the URL (a link opened, not a fetch from the page): it is shown a page, not JSON. */
export function isNavigation(headers: Headers): boolean {
  const mode = headers.get("sec-fetch-mode");
  if (mode !== null) return mode === "navigate";
  return (headers.get("accept") ?? "").includes("text/html");
}

/**
 * A state-changing request must come from this origin (SameSite=Lax already keeps the cookie off others): one of the
 * configured public origins, or, with none configured, the request's own Host. Never X-Forwarded-Host: a cross-site
 * POST carrying the session cookie and a forged X-Forwarded-Host was accepted (issue 35).
 */
export function sameOrigin(
  method: string,
  headers: Headers,
  publicOrigins: string[] = readConfig().publicOrigins,
): boolean {
  if (method === "GET" || method === "HEAD") return true;
  const origin = headers.get("origin");
  if (origin === null) return true; // not a browser form or fetch from another site
  let from: URL;
  try {
    from = new URL(origin);
  } catch {
    return false;
  }
  if (publicOrigins.length > 0) return publicOrigins.includes(from.origin);
  const host = headers.get("host");
  return host !== null && from.host === host;
}
