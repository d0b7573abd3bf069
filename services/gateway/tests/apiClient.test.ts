import { afterEach, describe, expect, it, vi } from "vitest";
import { apiDelete, callApi } from "../lib/apiClient";

afterEach(() => vi.unstubAllGlobals());

describe("apiDelete, through callApi", () => {
  it("takes a deletion's empty 204 and a JSON answer alike, through the proxy", async () => {
    const fetch = vi.fn(async () => new Response(null, { status: 204 }));
    vi.stubGlobal("fetch", fetch);
    await expect(apiDelete("/history/3")).resolves.toBeUndefined();
    expect(fetch).toHaveBeenCalledWith("/api/history/3", expect.objectContaining({ method: "DELETE" }));
    fetch.mockImplementation(async () => Response.json({ deleted: 2 }));
    await expect(callApi<{ deleted: number }>("/history", { method: "DELETE" })).resolves.toEqual({ deleted: 2 });
  });

  it("throws the problem's detail when the API refuses", async () => {
    const problem = { title: "Not Found", status: 404, detail: "Pesquisa salva não encontrada." };
    vi.stubGlobal("fetch", async () => Response.json(problem, { status: 404, headers: { "content-type": "application/problem+json" } }));
    await expect(apiDelete("/saved-searches/9")).rejects.toThrow();
  });
});
