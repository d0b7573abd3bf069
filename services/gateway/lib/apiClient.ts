// The browser's calls to the search API through this gateway's /api proxy (the session cookie goes with them).
import { errorMessage } from "./problem";

/** A JSON answer of /api{path}; a refused session goes to sign-in, an error throws its problem's detail. */
export async function callApi<T>(path: string, init?: RequestInit): Promise<T> {
  const json = typeof init?.body === "string";
  const response = await fetch(`/api${path}`, {
    ...init,
    headers: { accept: "application/json", ...(json ? { "content-type": "application/json" } : {}) },
  });
  if (response.status === 401) {
    window.location.assign(`/login?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
    throw new Error("sessão expirada");
  }
  if (!response.ok) throw new Error(await errorMessage(response)); // a problem document's detail
  if (response.status === 204) return undefined as T; // a deletion's empty answer
  return (await response.json()) as T;
}

/** DELETE /api{path} (204 or a JSON answer), as callApi: a refused session goes to sign-in, an error throws. */
export async function apiDelete(path: string): Promise<void> {
  await callApi<unknown>(path, { method: "DELETE" });
}
