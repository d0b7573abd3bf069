// /api/* -> the search service, as the signed-in user: identity headers from the session, never from the browser.
import type { NextRequest } from "next/server";
import { readConfig } from "../../../lib/config";
import { identityFromToken } from "../../../lib/identity";
import { downstreamHeaders, sameOrigin, upstreamHeaders, upstreamUrl } from "../../../lib/proxy";
import { SESSION_COOKIE } from "../../../lib/session";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ path: string[] }> };

function problem(status: number, detail: string): Response {
  return Response.json({ detail }, { status, headers: { "cache-control": "no-store" } });
}

async function proxy(request: NextRequest, context: Context): Promise<Response> {
  const config = readConfig();
  if (!sameOrigin(request.method, request.headers)) return problem(403, "origem não permitida");
  let identity;
  try {
    identity = identityFromToken(request.cookies.get(SESSION_COOKIE)?.value, config);
  } catch (err) {
    console.error(`precedente gateway: ${String(err)}`);
    return problem(503, "cadastro de usuários indisponível");
  }
  if (!identity) return problem(401, "sessão ausente ou expirada: entre novamente");
  const { path } = await context.params;
  const url = upstreamUrl(config.apiUrl, path, request.nextUrl.search);
  if (!url) return problem(404, "rota desconhecida");
  const hasBody = !["GET", "HEAD"].includes(request.method);
  let upstream: Response;
  try {
    upstream = await fetch(url, {
      method: request.method,
      headers: upstreamHeaders(request.headers, identity, config),
      body: hasBody ? await request.arrayBuffer() : undefined,
      redirect: "manual",
      cache: "no-store",
    });
  } catch (err) {
    console.error(`precedente gateway: ${request.method} ${url}: ${String(err)}`);
    return problem(502, "serviço de busca indisponível");
  }
  return new Response(upstream.body, { status: upstream.status, headers: downstreamHeaders(upstream.headers) });
}

export { proxy as DELETE, proxy as GET, proxy as PATCH, proxy as POST, proxy as PUT };
