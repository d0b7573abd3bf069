// Liveness of the gateway itself (no sign-in, no call to the search service): the container's HEALTHCHECK.
export const dynamic = "force-dynamic";

export function GET(): Response {
  return Response.json({ status: "ok" });
}
