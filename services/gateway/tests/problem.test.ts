// How the page reads the API's errors: RFC 9457 problem documents (services/search/problems.py).
import { describe, expect, it } from "vitest";
import { errorMessage, problemDetail, problemResponse } from "../lib/problem";

describe("problemDetail", () => {
  it("takes the detail, else the title, of a problem document, and nothing of other bodies", () => {
    expect(problemDetail({ type: "about:blank", title: "Too Many Requests", status: 429, detail: "too many searches; slow down" })).toBe(
      "too many searches; slow down",
    );
    expect(problemDetail({ title: "Not Found", status: 404, detail: "" })).toBe("Not Found");
    expect(problemDetail({ detail: [{ loc: ["body"], msg: "x" }] })).toBeNull(); // FastAPI's old 422 list
    expect(problemDetail("erro")).toBeNull();
    expect(problemDetail(null)).toBeNull();
  });
});

describe("errorMessage", () => {
  it("reads a problem+json response, and falls back to the status for one that is not JSON", async () => {
    const validation = new Response(
      JSON.stringify({ type: "about:blank", title: "Unprocessable Entity", status: 422, detail: "body.query: Field required", errors: [] }),
      { status: 422, headers: { "content-type": "application/problem+json" } },
    );
    expect(await errorMessage(validation)).toBe("body.query: Field required");
    expect(await errorMessage(new Response("<html>bad gateway</html>", { status: 502 }))).toBe("erro 502");
  });

  it("reads the gateway's own problems alike", async () => {
    const own = problemResponse(403, "origem não permitida");
    expect(own.status).toBe(403);
    expect(own.headers.get("content-type")).toBe("application/problem+json");
    expect(await errorMessage(own)).toBe("origem não permitida");
  });
});
