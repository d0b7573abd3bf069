// Security headers of every gateway response (next.config.ts) and the per-request CSP of pages (proxy.ts).

/**
 * The Content-Security-Policy. With a nonce (pages, set by proxy.ts) only scripts carrying it run, plus what
 * they load ('strict-dynamic'); 'unsafe-inline' is then ignored by every browser that knows nonces and only
 * keeps very old ones working. Without one (API answers, static files) inline scripts are allowed, which is
 * harmless there: those responses are JSON, PDFs, images and bundles, never HTML of ours.
 * Styles stay 'unsafe-inline': React's style attributes need it, and CSS cannot run script.
 */
export function contentSecurityPolicy(nonce?: string): string {
  const scripts = nonce ? `'self' 'nonce-${nonce}' 'strict-dynamic' 'unsafe-inline'` : "'self' 'unsafe-inline'";
  return [
    "default-src 'self'",
    `script-src ${scripts}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join("; ");
}

export interface HeaderEntry {
  key: string;
  value: string;
}

/** On every response. No Access-Control-* header anywhere: the page and its API are one origin, no CORS. */
export const SECURITY_HEADERS: readonly HeaderEntry[] = [
  { key: "Content-Security-Policy", value: contentSecurityPolicy() },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "same-origin" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=()" },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
];

/** A fresh, unguessable nonce per page (128 bits, base64). */
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}
