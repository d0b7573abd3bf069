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

describe("highlightSegments with the explanation's sentence", () => {
  const text = "Preliminar afastada. A cláusula arbitral patológica é nula. Recurso provido.";
  const sentence: [number, number] = [21, 59];

  it("cuts the marked spans at the sentence's edges and flags what lies inside it", () => {
    const segments = highlightSegments(text, [[11, 31], [32, 40]], sentence);
    expect(segments).toEqual([
      { text: "Preliminar ", marked: false },
      { text: "afastada. ", marked: true },
      { text: "A cláusula", marked: true, emphasised: true },
      { text: " ", marked: false, emphasised: true },
      { text: "arbitral", marked: true, emphasised: true },
      { text: " patológica é nula.", marked: false, emphasised: true },
      { text: " Recurso provido.", marked: false },
    ]);
    expect(segments.map((s) => s.text).join("")).toBe(text);
  });

  it("ignores an empty, inverted or out-of-range sentence, and clips one that runs past the end", () => {
    expect(highlightSegments(text, [], [5, 5])).toEqual([{ text, marked: false }]);
    expect(highlightSegments(text, [], [9, 3])).toEqual([{ text, marked: false }]);
    expect(highlightSegments(text, [], [500, 600])).toEqual([{ text, marked: false }]);
    expect(highlightSegments(text, [], null)).toEqual([{ text, marked: false }]);
    expect(highlightSegments(text, [], [60, 999])).toEqual([
      { text: text.slice(0, 60), marked: false },
      { text: "Recurso provido.", marked: false, emphasised: true },
    ]);
  });

  it("counts the sentence in code points too", () => {
    const astral = "𝔄 Primeira frase. Segunda frase.";
    const segments = highlightSegments(astral, [], [17, 32]);
    expect(segments.find((s) => s.emphasised)?.text).toBe(" Segunda frase.");
  });
});

describe("<Highlighted>", () => {
  it("wraps the explanation's sentence in one <strong>, the word marks inside it", () => {
    const html = renderToStaticMarkup(
      <Highlighted text="Preliminar afastada. A cláusula arbitral é nula." highlights={[[32, 40]]} emphasis={[21, 48]} />,
    );
    expect(html).toBe(
      '<span>Preliminar afastada. </span><strong class="key-sentence"><span>A cláusula </span><mark>arbitral</mark>' +
        "<span> é nula.</span></strong>",
    );
  });

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
