// /api/* -> the search service, as the signed-in user: the bearer comes from the session cookie, never the browser.
import { readConfig } from "../../../lib/config";
import { loginPath } from "../../../lib/navigation";
import { problemResponse } from "../../../lib/problem";
import { downstreamHeaders, isNavigation, sameOrigin, upstreamHeaders, upstreamUrl } from "../../../lib/proxy";
import { clearedSessionCookie, isSecure, sessionTokenFromCookies } from "../../../lib/session";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ path: string[] }> };

const problem = problemResponse; // RFC 9457, as the API answers its own errors

async function proxy(request: Request, context: Context): Promise<Response> {
  const config = readConfig();
  if (!sameOrigin(request.method, request.headers)) return problem(403, "origem não permitida");
  const { path } = await context.params;
  const incoming = new URL(request.url);
  const url = upstreamUrl(config.apiUrl, path, incoming.search);
  if (!url) return problem(404, "rota desconhecida");
  const token = sessionTokenFromCookies(request.headers.get("cookie"));
  const hasBody = !["GET", "HEAD"].includes(request.method);
  let upstream: Response;
  try {
    upstream = await fetch(url, {
      method: request.method,
      headers: upstreamHeaders(request.headers, token),
      body: hasBody ? await request.arrayBuffer() : undefined,
      redirect: "manual",
      cache: "no-store",
    });
  } catch (err) {
    console.error(`precedente gateway: ${request.method} ${url}: ${String(err)}`);
    return problem(502, "serviço de busca indisponível");
  }
  if (upstream.status === 401) {
    // No session, or one the API no longer accepts (expired, signed out, user removed): the cookie is dead.
    const cleared = token ? { "set-cookie": clearedSessionCookie(isSecure(request)) } : undefined;
    if (isNavigation(request.headers)) {
      // A link opened in the browser (the document link, say): the sign-in page, then back here.
      // Read, not cancelled: Next's fetch may tee the body, and cancelling one branch waits for the other.
      await upstream.arrayBuffer().catch(() => undefined);
      const location = loginPath(`${incoming.pathname}${incoming.search}`);
      return new Response(null, { status: 303, headers: { location, "cache-control": "no-store", ...cleared } });
    }
    const headers = downstreamHeaders(upstream.headers);
    if (cleared) headers.append("set-cookie", cleared["set-cookie"]);
    return new Response(upstream.body, { status: 401, headers });
  }
  return new Response(upstream.body, { status: upstream.status, headers: downstreamHeaders(upstream.headers) });
}

/**
 * No CORS: only this origin's pages call /api/*, and same-origin requests never send a preflight. A preflight
 * from another site gets no Access-Control-Allow-* (nor Allow) header, so the browser refuses the real request.
 */
function preflight(): Response {
  return problem(405, "sem CORS: só as páginas deste site chamam /api");
}

export { proxy as DELETE, proxy as GET, proxy as PATCH, proxy as POST, proxy as PUT, preflight as OPTIONS };
