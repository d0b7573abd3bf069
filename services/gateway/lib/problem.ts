// RFC 9457 problem documents: how the search API answers every error, and how this gateway answers its own.

export const PROBLEM_TYPE = "application/problem+json";

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  errors?: { loc: (string | number)[]; msg: string; type: string }[];
}

const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
};

/** The gateway's own error answer, in the API's shape, so the page reads both alike. */
export function problemResponse(status: number, detail: string, headers?: Record<string, string>): Response {
  const body: Problem = { type: "about:blank", title: TITLES[status] ?? "Error", status, detail };
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": PROBLEM_TYPE, "cache-control": "no-store", ...headers },
  });
}

/** What to show a person of an error body: the problem's `detail`, else its `title`, else null. */
export function problemDetail(body: unknown): string | null {
  if (body === null || typeof body !== "object") return null;
  const { detail, title } = body as { detail?: unknown; title?: unknown };
  if (typeof detail === "string" && detail.trim()) return detail;
  if (typeof title === "string" && title.trim()) return title;
  return null;
}

/** The message of an error response (its body read here), or `erro <status>` when it has none. */
export async function errorMessage(response: Response): Promise<string> {
  try {
    const found = problemDetail(await response.json());
    if (found) return found;
  } catch {
    // not JSON
  }
  return `erro ${response.status}`;
}
