import { describe, expect, it } from "vitest";
import { readConfig } from "../lib/config";
import { downstreamHeaders, isNavigation, sameOrigin, traceparent, upstreamHeaders, upstreamUrl } from "../lib/proxy";

const config = readConfig({ PRECEDENTE_API_URL: "http://127.0.0.1:8000/" });

describe("upstreamHeaders", () => {
  it("drops every credential and identity header from the browser and sets the session's bearer", () => {
    const incoming = new Headers({
      "X-Precedente-User": "admin",
      "X-Precedente-Groups": "socios,diretoria",
      "x-precedente-anything": "1",
      cookie: "precedente_session=abc",
      authorization: "Bearer prk_0123456789ab_forgedkeyforgedkeyforgedkeyforgedkeyforged",
      "proxy-authorization": "Basic eDp5",
      "x-forwarded-for": "10.0.0.1",
      "content-type": "application/json",
      accept: "application/json",
    });
    const out = upstreamHeaders(incoming, "prs_session-token");
    expect(out.get("authorization")).toBe("Bearer prs_session-token");
    expect(out.get("cookie")).toBeNull();
    expect(out.get("proxy-authorization")).toBeNull();
    expect(out.get("x-forwarded-for")).toBeNull();
    expect([...out.keys()].filter((k) => k.startsWith("x-precedente-"))).toEqual([]);
    expect(out.get("content-type")).toBe("application/json");
    expect([...out.keys()].sort()).toEqual(["accept", "authorization", "content-type", "traceparent"]);
  });

  it("sends no Authorization at all without a session, even when the browser sent one", () => {
    const out = upstreamHeaders(new Headers({ authorization: "Bearer prs_stolen", "X-Precedente-User": "ana" }), undefined);
    expect(out.get("authorization")).toBeNull();
    expect(out.get("x-precedente-user")).toBeNull();
  });

  it("passes the caller's W3C traceparent on, so the search service continues its trace", () => {
    const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const out = upstreamHeaders(new Headers({ traceparent: parent, tracestate: "vendor=1" }), "prs_t");
    expect(out.get("traceparent")).toBe(parent);
    expect(out.get("tracestate")).toBe("vendor=1");
  });

  it("starts a new trace when the caller sent none or an invalid one", () => {
    for (const sent of [null, "garbage", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"]) {
      const incoming = new Headers(sent === null ? {} : { traceparent: sent, tracestate: "vendor=1" });
      const out = upstreamHeaders(incoming, "prs_t");
      expect(out.get("traceparent")).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      expect(out.get("traceparent")).not.toBe(sent);
      expect(out.get("tracestate")).toBeNull();
    }
    expect(traceparent(null).value).not.toBe(traceparent(null).value);
  });
});

describe("upstreamUrl", () => {
  it("maps /api/<path> onto the search service, with the query string", () => {
    expect(upstreamUrl(config.apiUrl, ["search"], "")).toBe("http://127.0.0.1:8000/search");
    expect(upstreamUrl(config.apiUrl, ["review"], "?reason_code=x")).toBe("http://127.0.0.1:8000/review?reason_code=x");
    expect(upstreamUrl(config.apiUrl, ["review", "6f1c4f0e-6a9b", "pages", "1", "image"], "")).toBe(
      "http://127.0.0.1:8000/review/6f1c4f0e-6a9b/pages/1/image",
    );
  });

  it("refuses traversal and odd segments", () => {
    expect(upstreamUrl(config.apiUrl, [], "")).toBeNull();
    expect(upstreamUrl(config.apiUrl, ["..", "admin"], "")).toBeNull();
    expect(upstreamUrl(config.apiUrl, ["documents", "a/b"], "")).toBeNull();
    expect(upstreamUrl(config.apiUrl, ["documents", "%2e%2e"], "")).toBeNull();
    expect(upstreamUrl(config.apiUrl, ["http:", "", "evil"], "")).toBeNull();
  });
});

describe("downstreamHeaders", () => {
  it("passes the file's type and name, nothing else, and is never cached publicly", () => {
    const out = downstreamHeaders(
      new Headers({ "content-type": "application/pdf", "content-disposition": 'inline; filename="a.pdf"', server: "uvicorn", "set-cookie": "x=1" }),
    );
    expect(out.get("content-type")).toBe("application/pdf");
    expect(out.get("content-disposition")).toBe('inline; filename="a.pdf"');
    expect(out.get("server")).toBeNull();
    expect(out.get("set-cookie")).toBeNull();
    expect(out.get("cache-control")).toBe("private, no-store");
  });

  it("never passes CORS or authentication headers back to the browser", () => {
    const out = downstreamHeaders(
      new Headers({
        "content-type": "application/json",
        "access-control-allow-origin": "*",
        "access-control-allow-credentials": "true",
        "www-authenticate": "Bearer",
        "retry-after": "30",
      }),
    );
    expect([...out.keys()].filter((k) => k.startsWith("access-control-"))).toEqual([]);
    expect(out.get("www-authenticate")).toBeNull();
    expect(out.get("retry-after")).toBe("30");
  });
});

describe("downstreamHeaders for originals of other types", () => {
  it("turns an uploaded HTML or SVG file into a download, so its scripts never run on this origin", () => {
    for (const type of ["text/html; charset=utf-8", "image/svg+xml", "application/xhtml+xml", "text/xml"]) {
      const out = downstreamHeaders(new Headers({ "content-type": type, "content-disposition": 'inline; filename="x.html"' }));
      expect(out.get("content-type")).toBe("application/octet-stream");
      expect(out.get("content-disposition")).toBe('attachment; filename="x.html"');
    }
    const bare = downstreamHeaders(new Headers({ "content-type": "text/html" }));
    expect(bare.get("content-disposition")).toBe("attachment");
  });

  it("leaves PDFs, page images, JSON (and the API's problem documents) and plain text as they are", () => {
    for (const type of ["application/pdf", "image/png", "application/json", "application/problem+json", "text/plain; charset=utf-8"]) {
      expect(downstreamHeaders(new Headers({ "content-type": type })).get("content-type")).toBe(type);
    }
  });
});

describe("sameOrigin", () => {
  it("allows reads and same-site writes, refuses writes from another origin", () => {
    expect(sameOrigin("GET", new Headers({ origin: "https://evil.example", host: "gw" }))).toBe(true);
    expect(sameOrigin("POST", new Headers({ origin: "http://gw:3000", host: "gw:3000" }))).toBe(true);
    expect(sameOrigin("POST", new Headers({ origin: "https://evil.example", host: "gw:3000" }))).toBe(false);
    expect(sameOrigin("POST", new Headers({ host: "gw:3000" }))).toBe(true);
  });

  it("never trusts X-Forwarded-Host: a cross-site POST that forges it is refused", () => {
    const forged = new Headers({ origin: "https://evil.example", host: "gw:3000", "x-forwarded-host": "evil.example" });
    expect(sameOrigin("POST", forged, [])).toBe(false);
    expect(sameOrigin("POST", forged, ["https://precedente.firma.com.br"])).toBe(false);
  });

  it("checks against the configured public origin, whatever Host a proxy passes on", () => {
    const origins = readConfig({ PRECEDENTE_PUBLIC_ORIGIN: " https://precedente.firma.com.br/ , http://127.0.0.1:3000" })
      .publicOrigins;
    expect(origins).toEqual(["https://precedente.firma.com.br", "http://127.0.0.1:3000"]);
    const behindProxy = new Headers({ origin: "https://precedente.firma.com.br", host: "gateway:3000" });
    expect(sameOrigin("POST", behindProxy, origins)).toBe(true);
    // The Host alone no longer vouches for an origin once the public ones are named.
    expect(sameOrigin("POST", new Headers({ origin: "http://gateway:3000", host: "gateway:3000" }), origins)).toBe(false);
    expect(sameOrigin("POST", new Headers({ origin: "null", host: "gateway:3000" }), origins)).toBe(false);
    expect(readConfig({}).publicOrigins).toEqual([]);
    expect(() => readConfig({ PRECEDENTE_PUBLIC_ORIGIN: "precedente sem esquema" })).toThrow();
  });
});

describe("isNavigation", () => {
  it("tells a link opened in the browser from a fetch of the page", () => {
    expect(isNavigation(new Headers({ "sec-fetch-mode": "navigate", accept: "text/html" }))).toBe(true);
    expect(isNavigation(new Headers({ "sec-fetch-mode": "cors", accept: "text/html" }))).toBe(false);
    expect(isNavigation(new Headers({ accept: "application/json" }))).toBe(false);
    expect(isNavigation(new Headers({ accept: "text/html,application/xhtml+xml" }))).toBe(true);
  });
});
