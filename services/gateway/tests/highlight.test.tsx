import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Highlighted } from "../components/Highlighted";
import { highlightSegments } from "../lib/highlight";

describe("highlightSegments", () => {
  it("splits the passage at the matched spans", () => {
    expect(highlightSegments("dano moral coletivo", [[0, 4], [11, 19]])).toEqual([
      { text: "dano", marked: true },
      { text: " moral ", marked: false },
      { text: "coletivo", marked: true },
    ]);
  });

  it("merges overlapping and adjacent spans, sorts them and drops invalid ones", () => {
    const segments = highlightSegments("abcdefghij", [[5, 8], [2, 4], [3, 6], [9, 9], [-1, 2], [8, 99]]);
    expect(segments).toEqual([
      { text: "ab", marked: false },
      { text: "cdefghij", marked: true }, // adjacent spans become one
    ]);
  });

  it("counts offsets in code points, as the search service does", () => {
    const text = "𝔄 prazo decadencial";
    const segments = highlightSegments(text, [[2, 7]]);
    expect(segments.find((s) => s.marked)?.text).toBe("prazo");
  });

  it("returns the whole text unmarked without highlights", () => {
    expect(highlightSegments("sem destaque", [])).toEqual([{ text: "sem destaque", marked: false }]);
  });
});

describe("<Highlighted>", () => {
  it("renders matched spans in <mark>", () => {
    const html = renderToStaticMarkup(<Highlighted text="responsabilidade solidária" highlights={[[17, 26]]} />);
    expect(html).toBe("<span>responsabilidade </span><mark>solidária</mark>");
  });

  it("renders a <script> passage as text, never as markup", () => {
    const text = 'Petição <script>alert(1)</script> e <img src=x onerror="alert(2)">';
    const html = renderToStaticMarkup(<Highlighted text={text} highlights={[[8, 16]]} />);
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<img");
    expect(html).toContain("<mark>&lt;script&gt;</mark>");
    expect(html).toContain("alert(1)&lt;/script&gt;");
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(2)&quot;&gt;");
  });
});
