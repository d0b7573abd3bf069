import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { facetOptions, Filters, settledDate } from "../components/Filters";
import { COPY_MESSAGES, copyCitation, displayText, FOLD_AT, ResultCard } from "../components/ResultCard";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  apiHref,
  authorsLine,
  dateLabel,
  processLabel,
  SECTION_LABELS,
  SECTION_PLACES,
  sectionLabel,
  sectionPlace,
  subtypeLabel,
  unreadPagesLabel,
} from "../lib/format";
import type { SearchResult } from "../lib/types";
import { EMPTY_STATE } from "../lib/urlState";
import { STRONG_RESULT, WEAK_RESULT } from "./fakeApi";

const render = (result: SearchResult, weak = false) =>
  renderToStaticMarkup(<ResultCard result={result} position={1} weak={weak} />);

/** The text a browser shows for this markup (tags dropped, entities decoded), to read sentences across elements. */
function visibleText(html: string): string {
  return html
    .replace(/<[^>]+>/g, "")
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

describe("<ResultCard> with every field of the contract", () => {
  const html = render(STRONG_RESULT);

  it("shows the grade as a label, never a score", () => {
    expect(html).toContain('<p class="relevance relevance-forte">Relevância forte</p>');
    expect(html).toContain('class="result result-forte"');
    expect(html).not.toContain("0.81");
    expect(html).not.toContain("81%");
    expect(html).not.toContain("0.91");
    expect(html).not.toMatch(/Proximidade|similaridade|score/i);
  });

  it("says beside the grade why the API gave it, in the reasons it returned", () => {
    const reasoned = render({ ...STRONG_RESULT, relevance_basis: ["conceito equivalente", "palavras da consulta"] });
    expect(reasoned).toContain(
      '<p class="relevance relevance-forte">Relevância forte<span class="relevance-basis"> · conceito equivalente, palavras da consulta</span></p>',
    );
  });

  it("heads the card with the citation, and tells relator, órgão julgador and both dates apart", () => {
    expect(html).toContain(`<h2 id="resultado-1" class="result-title" tabindex="-1">${STRONG_RESULT.citation}</h2>`);
    expect(html).toContain("<dt>Relator(a)</dt><dd>Nancy Andrighi</dd>");
    expect(html).toContain("<dt>Órgão julgador</dt><dd>3ª Turma</dd>");
    expect(html).toContain("<dt>Julgado em</dt><dd>15/09/2016</dd>");
    expect(html).toContain("<dt>Publicado em</dt><dd>30/09/2016</dd>");
    expect(html).toContain("<dt>Processo</dt><dd>REsp 1.602.076/SP</dd>"); // the class once, not "Recurso Especial REsp"
    expect(html).toContain('<span class="tag">Acórdão</span>');
    expect(html).toContain('<span class="tag">STJ</span>');
    expect(html).toContain('<span class="passage-place">p. 1, na ementa</span>');
  });

  it("offers real buttons (no inline handler) to copy the citation and the ementa", () => {
    expect(html).toContain('<button type="button" class="copy-button" aria-describedby="resultado-1">Copiar citação</button>');
    expect(html).toContain('<button type="button" class="copy-button" aria-describedby="resultado-1">Copiar ementa</button>');
    expect(html).not.toMatch(/\son[a-z]+=/i); // no inline handler attribute: the strict CSP would block it
  });

  it("explains why under 'Por que é relevante' and emphasises that sentence inside the passage", () => {
    expect(html).toContain("Por que é relevante: </span>O trecho afirma que o Judiciário pode declarar nula");
    const sentence = /<strong class="key-sentence">(.*?)<\/strong>/.exec(html)?.[1] ?? "";
    expect(visibleText(sentence)).toBe(
      "O Poder Judiciário pode, nos casos em que prima facie é identificado um compromisso arbitral “patológico”, " +
        "i.e., claramente ilegal, declarar a nulidade dessa cláusula, independentemente do estado em que se encontre " +
        "o procedimento arbitral.",
    );
    // The word highlights stay, inside and outside the sentence.
    expect(sentence).toContain("<mark>nulidade</mark>");
    expect(sentence).toContain("<mark>arbitral</mark>");
    const before = html.slice(html.indexOf('<blockquote id="trecho-1" class="passage">'), html.indexOf('<strong class="key-sentence">'));
    expect(visibleText(before)).toContain("3. Todos os contratos de adesão");
    expect(before).not.toContain("<mark>");
  });

  it("opens the original through the gateway at the passage's page, the passage marked", () => {
    expect(html).toContain(
      `<a class="open-document" href="/api/documents/${STRONG_RESULT.document_id}?passage=4711#page=1" target="_blank" rel="noopener noreferrer">`,
    );
    expect(html).toContain("Abrir o documento na página 1");
    expect(html.match(/class="open-document"/g)).toHaveLength(1); // the page focuses the n-th one after "mais"
  });

  it("lists the work's other passages with page, section, highlights and link", () => {
    const others = html.slice(html.indexOf('<details class="other-passages"'), html.indexOf('<details class="copies"'));
    expect(others).toContain("<summary>Outros trechos desta decisão (2)</summary>"); // folded
    expect(others.match(/<li>/g)).toHaveLength(2);
    expect(others).toContain('<span class="passage-place">p. 6, no voto</span>');
    expect(others).toContain('<span class="passage-place">p. 6–7, no voto › I – Do alegado descumprimento ao art. 526 do CPC</span>');
    expect(others).toContain("<mark>compromisso arbitral</mark>");
    expect(others).toContain(`href="/api/documents/${STRONG_RESULT.document_id}?passage=4733#page=6"`);
    expect(others).toContain(`href="/api/documents/${STRONG_RESULT.document_id}?passage=4734#page=6"`);
    expect(others).toContain("Abrir este trecho na página 6");
    expect(others).not.toContain('class="passage"');
  });

  it("lists the other copies of the work with links through the gateway", () => {
    const copies = html.slice(html.indexOf('<details class="copies"'));
    expect(copies).toContain("<summary>Outras cópias (2)</summary>");
    expect(copies).toContain(
      '<a class="open-copy" href="/api/documents/0b7d2f4e-1c2a-4e1b-8f5c-3a9d7e6c5b41" target="_blank" rel="noopener noreferrer">REsp 1.602.076/SP (digitalização)',
    );
    expect(copies).toContain("(stj_resp_1602076_sp_acordao_scan.pdf)");
  });

  it("says when the file opened holds only the ementa, and not when it is the inteiro teor", () => {
    expect(html).not.toContain("só a ementa)");
    const extract = render({ ...STRONG_RESULT, full_text: false });
    expect(extract).toContain('<span class="document-extent"> (este arquivo traz só a ementa)</span>');
  });

  it("says which copy is the inteiro teor and which holds only the ementa", () => {
    const copies = html.slice(html.indexOf('<details class="copies"'));
    const items = copies.split("<li").slice(1);
    expect(items[0]).toContain("(stj_resp_1602076_sp_acordao_scan.pdf)");
    expect(items[0]).toContain('<span class="copy-extent"> — inteiro teor</span>');
    expect(items[1]).toContain("(i1078.pdf)");
    expect(items[1]).toContain('<span class="copy-extent"> — só a ementa</span>');
  });

  it("shows the ementa collapsed, to be opened", () => {
    expect(html).toMatch(/<details class="ementa"><summary>Ementa<\/summary><p class="ementa-text">RECURSO ESPECIAL\. DIREITO CIVIL/);
    expect(html).not.toMatch(/<details[^>]*open/);
  });
});

describe("<ResultCard> with only what every result has", () => {
  const html = render(WEAK_RESULT);

  it("falls back to the title, leaves out every missing field and section", () => {
    expect(html).toContain('<h2 id="resultado-1" class="result-title" tabindex="-1">nota_interna.txt</h2>');
    for (const absent of ["Copiar citação", "Relator", "Órgão julgador", "Julgado em", "Publicado em", "Processo",
      "Ementa", "<details", "Outros trechos", "Outras cópias", "key-sentence", "<dl"]) {
      expect(html, absent).not.toContain(absent);
    }
    expect(html).toContain('<span class="tag">Outro</span>');
    expect(html).toContain('<span class="passage-place">p. 1, no texto</span>');
    expect(html).toContain(`href="/api/documents/${WEAK_RESULT.document_id}"`);
  });

  it("is a weak card: its own grade and muted style", () => {
    expect(html).toContain('<p class="relevance relevance-fraca">Relevância fraca</p>');
    expect(html).toContain('class="result result-fraca"');
  });

  it("works with a response of the old contract: no grade is weak, the link is built from the id and page", () => {
    const { relevance: _r, document_url: _u, other_passages: _o, copies: _c, ...old } = WEAK_RESULT;
    const bare = render({ ...old, page_number: 3, document_date: "2019-03-07", court: "tre_sp", document_type_label: null });
    expect(bare).toContain("Relevância fraca");
    expect(bare).toContain(`href="/api/documents/${WEAK_RESULT.document_id}#page=3"`);
    expect(bare).toContain('<span class="tag">TRE-SP</span>');
    expect(bare).toContain("<span>07/03/2019</span>"); // the document's date, when neither judgment nor publication is known
  });

  it("shows a 'provável' work as such, and any work as weak when the search found nothing clearly relevant", () => {
    expect(render({ ...STRONG_RESULT, relevance: "provável" })).toContain(
      '<p class="relevance relevance-provavel">Relevância provável</p>',
    );
    const forced = render(STRONG_RESULT, true);
    expect(forced).toContain("Relevância fraca");
    expect(forced).toContain('class="result result-fraca"');
    expect(forced).not.toContain("Relevância forte");
  });
});

describe("<ResultCard> escaping", () => {
  it("renders HTML in title, citation, passages, ementa and copies as text", () => {
    const evil = "<script>alert(1)</script><img src=x onerror=alert(2)>";
    const html = render({
      ...STRONG_RESULT,
      citation: `STJ, ${evil}`,
      chunk_text: `Trecho ${evil} fim`,
      highlights: [[7, 15]],
      explanation_span: [0, 6],
      relevance_explanation: evil,
      ementa: evil,
      relator: evil,
      other_passages: [{ ...STRONG_RESULT.other_passages![0]!, chunk_text: evil, highlights: [[0, 8]], section_path: evil }],
      copies: [{ ...STRONG_RESULT.copies![0]!, title: evil, filename: evil }],
    });
    expect(html).not.toContain("<script");
    expect(html).not.toContain("<img");
    expect(html).toContain("STJ, &lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("<mark>&lt;script&gt;</mark>");
    expect(renderToStaticMarkup(<ResultCard result={{ ...WEAK_RESULT, document_title: evil }} position={2} />)).toContain(
      "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;</h2>",
    );
  });

  it("never links outside the gateway's /api, whatever document_url says", () => {
    const html = render({ ...STRONG_RESULT, document_url: "javascript:alert(1)" });
    expect(html).toContain(`href="/api/documents/${STRONG_RESULT.document_id}#page=1"`);
    expect(html).not.toContain("javascript:");
    expect(apiHref("https://evil.example/x", "/api/fallback")).toBe("/api/fallback");
    expect(apiHref("//evil.example/x", "/api/fallback")).toBe("/api/fallback");
    expect(apiHref("/documents/a?passage=2#page=3", "/api/fallback")).toBe("/api/documents/a?passage=2#page=3");
  });
});

describe("copyCitation", () => {
  /** A clipboard as browsers offer it (navigator.clipboard): what was written, or a refusal. */
  function clipboard(refuse = false) {
    const written: string[] = [];
    return {
      written,
      writeText: async (text: string) => {
        if (refuse) throw new DOMException("Write permission denied.", "NotAllowedError");
        written.push(text);
      },
    };
  }

  it("puts the citation on the clipboard and says so", async () => {
    const board = clipboard();
    expect(await copyCitation(STRONG_RESULT.citation!, board)).toBe("copied");
    expect(board.written).toEqual([STRONG_RESULT.citation]);
    expect(COPY_MESSAGES.copied).toBe("Citação copiada");
  });

  it("says it failed when the browser refuses or has no clipboard (plain http)", async () => {
    expect(await copyCitation("x", clipboard(true))).toBe("failed");
    expect(await copyCitation("x", undefined)).toBe("failed");
    expect(COPY_MESSAGES.failed).toMatch(/Não foi possível copiar/);
  });
});

describe("sectionLabel", () => {
  it("names the parts of shared/legal/sections.py as a lawyer does", () => {
    expect(sectionLabel("fundamentacao")).toBe("Fundamentação");
    expect(sectionLabel("cabecalho")).toBe("Cabeçalho");
    expect(sectionLabel("ementa")).toBe("Ementa");
    expect(sectionLabel("relatorio")).toBe("Relatório");
    expect(sectionLabel("voto")).toBe("Voto");
    expect(sectionLabel("dispositivo")).toBe("Dispositivo");
    expect(sectionLabel("voto_vencido")).toBe("Voto vencido");
    expect(sectionLabel("mensagem 2")).toBe("Mensagem 2");
  });

  it("labels every part of a path and keeps headings from the text as written", () => {
    expect(sectionLabel("voto > II – Da não incidência do CDC > dispositivo")).toBe(
      "Voto › II – Da não incidência do CDC › Dispositivo",
    );
    expect(sectionLabel("Art. 51 > § 2º")).toBe("Art. 51 › § 2º");
    expect(sectionLabel(null)).toBe("");
  });
});

describe("where a passage is and which case it is (issue 36: RE 657.718/MG's card)", () => {
  const acordao = render({
    ...STRONG_RESULT,
    page_number: 4,
    page_end: 4,
    section_path: "acordao",
    procedural_class: "Recurso Extraordinário",
    process_number: "RE 657.718/MG",
  });

  it("says the part after the page as a place, so it is not read as a second 'Acórdão' type tag", () => {
    const meta = /<p class="result-meta">(.*?)<\/p>/.exec(acordao)?.[1] ?? "";
    expect(meta).toContain('<span class="tag">Acórdão</span>');
    expect(meta).toContain('<span class="passage-place">p. 4, no acórdão (resultado do julgamento)</span>');
    expect(visibleText(meta).match(/Acórdão/g)).toHaveLength(1); // the tag's word once; the part says "no acórdão (...)"
  });

  it("names the class once in 'Processo'", () => {
    expect(acordao).toContain("<dt>Processo</dt><dd>RE 657.718/MG</dd>");
    expect(processLabel("Recurso Extraordinário", "RE 657.718/MG")).toBe("RE 657.718/MG");
    expect(processLabel("Apelação Cível", "0740303-79.2019.8.07.0001")).toBe("Apelação Cível 0740303-79.2019.8.07.0001");
    expect(processLabel("Recurso Especial", null)).toBe("Recurso Especial");
    expect(processLabel("Embargos de Declaração", "EDcl no REsp 1.836.584/MG")).toBe("EDcl no REsp 1.836.584/MG");
    expect(processLabel("Reference for a preliminary ruling", "C-311/18")).toBe("Pedido de decisão prejudicial C-311/18");
    expect(processLabel("Apelação", "nº 1001234-56.2020.8.26.0100")).toBe("Apelação nº 1001234-56.2020.8.26.0100");
    expect(processLabel(null, "657.718/MG")).toBe("657.718/MG");
    expect(processLabel(null, null)).toBe("");
  });

  it("places every part, heading paths and messages included", () => {
    expect(sectionPlace("ementa")).toBe("na ementa");
    expect(sectionPlace("voto_vencido > dispositivo")).toBe("no voto vencido › Dispositivo");
    expect(sectionPlace("mensagem 2")).toBe("na mensagem 2");
    expect(sectionPlace("Art. 51 > § 2º")).toBe("Art. 51 › § 2º");
    expect(sectionPlace(null)).toBe("");
  });

  it("places the parts as the Python vocabulary does (shared/legal/sections.py SECTION_PLACES)", () => {
    const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
    const sections = readFileSync(path.join(repo, "shared", "legal", "sections.py"), "utf8");
    const declared = /SECTION_PLACES = \{([^}]*)\}/.exec(sections)?.[1] ?? "";
    const places = Object.fromEntries([...declared.matchAll(/"([a-z_]+)": "([^"]+)"/g)].map((m) => [m[1], m[2]]));
    expect(Object.keys(places).sort()).toEqual(Object.keys(SECTION_LABELS).sort());
    expect(SECTION_PLACES).toEqual(places);
  });
});

describe("<Filters>", () => {
  it("lists facet values with their counts, the most frequent first", () => {
    expect(facetOptions({ stj: 2, tjsp: 5 }, "", (c) => c.toUpperCase())).toEqual([
      { value: "tjsp", label: "TJSP", count: 5 },
      { value: "stj", label: "STJ", count: 2 },
    ]);
  });

  it("keeps the selected value even when the search did not count it", () => {
    expect(facetOptions({}, "trf3", (c) => c)).toEqual([{ value: "trf3", label: "trf3" }]);
  });

  it("renders each facet as labelled checkboxes with counts, the selected ones ticked", () => {
    const html = renderToStaticMarkup(
      <Filters
        state={{ ...EMPTY_STATE, q: "x", court: ["tjsp"] }}
        facets={{
          document_type: { sentenca: 3 },
          court: { tjsp: 3, stj: 2 },
          relator: { "Fulano de Tal": 1 },
          procedural_class: { "Recurso Especial": 2 },
        }}
        labels={{ document_type: {}, court: { tjsp: "TJSP" } }}
        onChange={() => undefined}
        onClear={() => undefined}
      />,
    );
    expect(html).toContain('<fieldset class="facet" id="filtro-tipo"><legend>Tipo de documento</legend>');
    expect(visibleText(html)).toContain("Sentença (3 resultados)");
    expect(html).toContain('<input type="checkbox" id="filtro-tribunal-0" checked="" value="tjsp"/>');
    expect(html).toContain('<input type="checkbox" id="filtro-tribunal-1" value="stj"/><label for="filtro-tribunal-1">');
    expect(html).toContain("<legend>Classe processual</legend>");
    expect(visibleText(html)).toContain("Recurso Especial (2 resultados)");
    expect(visibleText(html)).toContain("Fulano de Tal (1 resultado)");
    expect(html).not.toContain("Órgão julgador"); // no facet values, nothing selected
    expect(html).not.toContain("<select"); // an arrow key never changes a checkbox
    expect(html).toContain("Limpar filtros");
  });

  it("labels every facet value in Portuguese, one no result shown carries too", () => {
    // A TJUE judgment in English once stood as "Reference for a preliminary ruling" (issue 36); the firm's own
    // pareceres as "INTERNO" before a result of theirs was shown.
    const html = renderToStaticMarkup(
      <Filters
        state={{ ...EMPTY_STATE, q: "x" }}
        facets={{
          court: { interno: 2, tjue: 1, presidencia: 1 },
          procedural_class: { "Reference for a preliminary ruling": 1, "Recurso Especial": 2 },
          judging_body: { "First Chamber": 1, "3ª Turma": 2 },
        }}
        labels={{ document_type: {}, court: {} }}
        onChange={() => undefined}
        onClear={() => undefined}
      />,
    );
    const text = visibleText(html);
    expect(text).toContain("Pedido de decisão prejudicial (1 resultado)");
    expect(text).toContain("1ª Secção (1 resultado)");
    expect(text).toContain("Escritório (interno) (2 resultados)");
    expect(text).toContain("Presidência da República (1 resultado)");
    expect(text).toContain("TJUE (1 resultado)");
    expect(text).not.toMatch(/Reference|Chamber|INTERNO/);
    expect(html).toContain('value="Reference for a preliminary ruling"'); // the filter still sends the stored value
    const card = visibleText(
      render({
        ...STRONG_RESULT,
        procedural_class: "Reference for a preliminary ruling",
        process_number: "C-311/18",
        judging_body: "First Chamber",
      }),
    );
    expect(card).toContain("Pedido de decisão prejudicial");
    expect(card).toContain("1ª Secção");
    expect(card).not.toMatch(/Reference|Chamber/);
  });

  it("folds a long facet behind 'Mostrar todos', the ticked values always shown", () => {
    const counts = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`Relator ${i}`, 20 - i]));
    const html = renderToStaticMarkup(
      <Filters
        state={{ ...EMPTY_STATE, q: "x", relator: ["Relator 8"] }}
        facets={{ relator: counts }}
        labels={{ document_type: {}, court: {} }}
        onChange={() => undefined}
        onClear={() => undefined}
      />,
    );
    expect(html).toContain("Relator(a) ou juiz(a)"); // a sentença's judge is listed too, and is no relator
    expect(html).toContain("Relator 5");
    expect(html).not.toContain("Relator 6");
    expect(html).toContain("Relator 8");
    expect(html).toContain("Mostrar todos (9)");
  });

  it("applies a date only once it is whole", () => {
    expect(settledDate("")).toBe(true);
    expect(settledDate("2016-09-15")).toBe(true);
    expect(settledDate("0201-09-15")).toBe(false); // the year being typed
    expect(settledDate("2016-09")).toBe(false);
  });
});

describe("<ResultCard> of works that are not decisions", () => {
  const doctrine: SearchResult = {
    ...WEAK_RESULT,
    document_title: "Mediação e conciliação no Judiciário",
    document_type: "doutrina",
    document_type_label: "Doutrina",
    document_subtype: "artigo",
    document_subtype_label: "Artigo",
    authors: ["Pedro Gomes de Queiroz", "Ana Paula de Souza"],
    venue: "Revista de Processo",
    year: 2019,
    citation:
      "QUEIROZ, Pedro Gomes de; SOUZA, Ana Paula de. Mediação e conciliação no Judiciário. Revista de Processo, 2019.",
  };
  const act: SearchResult = {
    ...WEAK_RESULT,
    document_title: "Política Judiciária Nacional de tratamento adequado dos conflitos",
    document_type: "ato_normativo",
    document_type_label: "Ato normativo",
    court: "cnj",
    court_label: "CNJ",
    document_subtype: "resolucao",
    document_subtype_label: "Resolução",
    act_number: "125",
    issuing_body: "Conselho Nacional de Justiça",
    document_date: "2010-11-29",
    citation: "Resolução CNJ nº 125, de 29 de novembro de 2010",
  };

  it("shows a work of doctrine's kind, authors, venue and year", () => {
    const html = render(doctrine);
    expect(html).toContain('<span class="tag">Doutrina</span><span class="tag">Artigo</span>');
    expect(html).toContain("<dt>Autoria</dt><dd>Pedro Gomes de Queiroz; Ana Paula de Souza</dd>");
    expect(html).toContain("<dt>Publicação</dt><dd>Revista de Processo</dd>");
    expect(html).toContain("<dt>Ano</dt><dd>2019</dd>");
    expect(html).toContain(`<h2 id="resultado-1" class="result-title" tabindex="-1">${doctrine.citation}</h2>`);
    expect(html).not.toContain("Número");
  });

  it("shows an act's kind, number and issuer", () => {
    const html = render(act);
    expect(html).toContain('<span class="tag">Resolução</span>');
    expect(html).toContain("<dt>Número</dt><dd>125</dd>");
    expect(html).toContain("<dt>Órgão emissor</dt><dd>Conselho Nacional de Justiça</dd>");
    expect(html).toContain("29/11/2010");
    expect(html).not.toContain("Autoria");
  });

  it("shows none of it for a result without those fields", () => {
    const html = render(WEAK_RESULT);
    expect(html).not.toMatch(/Autoria|Publicação|Órgão emissor|<dt>Número/);
    expect(html).not.toContain('class="result-facts"');
  });

  it("says which pages of the document the index could not read", () => {
    expect(visibleText(render({ ...act, unread_pages: [10, 11] }))).toContain(
      "Páginas 10 e 11 não lidas: a busca não as alcança",
    );
    expect(visibleText(render({ ...act, unread_pages: [7] }))).toContain("Página 7 não lida: a busca não a alcança");
    expect(unreadPagesLabel([2, 5, 8])).toBe("Páginas 2, 5 e 8 não lidas");
    expect(render(act)).not.toContain("unread-pages");
  });

  it("writes the authors and a subtype code without its label", () => {
    expect(authorsLine(["A", " B ", "", "C", "D"])).toBe("A; B; C et al.");
    expect(authorsLine(undefined)).toBe("");
    expect(subtypeLabel("instrucao_normativa")).toBe("Instrução normativa");
    expect(subtypeLabel("dissertacao")).toBe("Dissertação de mestrado");
    expect(subtypeLabel("codigo_novo")).toBe("Codigo novo");
    expect(subtypeLabel("tese", { tese: "Tese de doutorado" })).toBe("Tese de doutorado");
  });
});

describe("<Filters> by subtype", () => {
  const filters = (state = { ...EMPTY_STATE, q: "x" }, facets = {}) =>
    renderToStaticMarkup(
      <Filters
        state={state}
        facets={facets}
        labels={{ document_type: {}, court: {}, document_subtype: { resolucao: "Resolução" } }}
        onChange={() => undefined}
        onClear={() => undefined}
      />,
    );

  it("offers the subtypes the search counted, with their labels", () => {
    const html = filters(undefined, { document_subtype: { resolucao: 2, artigo: 1 } });
    expect(html).toContain("<legend>Espécie</legend>");
    expect(html).toContain('value="resolucao"/><label for="filtro-subtipo-0"><span class="facet-label">Resolução</span>');
    expect(visibleText(html)).toContain("Artigo (1 resultado)");
  });

  it("has no subtype group without the facet, unless one is selected", () => {
    expect(filters(undefined, { document_type: { acordao: 1 } })).not.toContain("filtro-subtipo");
    expect(filters({ ...EMPTY_STATE, q: "x", subtype: ["tese"] })).toContain(
      '<input type="checkbox" id="filtro-subtipo-0" checked="" value="tese"/><label for="filtro-subtipo-0"><span class="facet-label">Tese de doutorado</span></label>',
    );
  });
});

describe("<ResultCard> passage display", () => {
  it("shows a long passage folded with a visible 'Ver trecho inteiro', never a hidden scroll box", () => {
    const long = "Texto do voto. ".repeat(Math.ceil(FOLD_AT / 15) + 5);
    const html = render({ ...STRONG_RESULT, chunk_text: long, highlights: [], explanation_span: null });
    expect(html).toContain('<blockquote id="trecho-1" class="passage folded">');
    expect(html).toContain(
      '<button type="button" class="link-button more-text" aria-expanded="false" aria-controls="trecho-1">Ver trecho inteiro</button>',
    );
    const short = render(STRONG_RESULT);
    expect(short).toContain('<blockquote id="trecho-1" class="passage">');
    expect(short).not.toContain("Ver trecho inteiro");
  });

  it("shows a page break as a line break, one character for one (the highlights stay on their words)", () => {
    expect(displayText("fim da página\fInício da outra\u0007")).toBe("fim da página\nInício da outra ");
    const html = render({ ...STRONG_RESULT, chunk_text: "nulidade\fda cláusula", highlights: [[9, 11]], explanation_span: null });
    expect(visibleText(html)).toContain("nulidade\nda cláusula");
    expect(html).toContain("<mark>da</mark>");
    expect(html).not.toContain("\f");
  });

  it("runs a narrow column's word-per-line ementa into lines, one character for one, provisions kept apart", () => {
    const ementa = "EMENTA\nRECURSO ESPECIAL.\nCONTRATO\nDE\nFRANQUIA.\n\nCONTRATO\nDE\nADESÃO.";
    expect(displayText(ementa)).toBe("EMENTA RECURSO ESPECIAL.\nCONTRATO DE FRANQUIA.\n\nCONTRATO DE ADESÃO.");
    const act = "Resolve:\nArt. 1º\nFica instituído o sistema.\nI -\nos cartórios;\nDiretor\nArt. 2º Revoga-se.\nPresidente\n§ 1º O prazo";
    expect(displayText(act)).toBe(
      "Resolve:\nArt. 1º Fica instituído o sistema.\nI - os cartórios;\nDiretor\nArt. 2º Revoga-se.\nPresidente\n§ 1º O prazo",
    );
    const prose = "O contrato de franquia, por sua natureza,\nnão está sujeito às regras\nprotetivas do CDC.";
    expect(displayText(prose)).toBe(prose); // lines of prose keep their breaks (pre-line wraps them anyway)
    expect(displayText(ementa)).toHaveLength(ementa.length);
    const html = render({ ...STRONG_RESULT, chunk_text: "CONTRATO\nDE\nFRANQUIA.", highlights: [[12, 20]], explanation_span: null });
    expect(visibleText(html)).toContain("CONTRATO DE FRANQUIA.");
    expect(html).toContain("<mark>FRANQUIA</mark>");
  });
});

describe("the date of a result", () => {
  it("says a decision was judged and gives an act, parecer or article only its date", () => {
    expect(dateLabel("acordao")).toBe("Julgado em");
    expect(dateLabel("decisao_monocratica")).toBe("Julgado em");
    for (const kind of ["parecer", "ato_normativo", "doutrina", "peticao", null]) expect(dateLabel(kind)).toBe("Data");
    const act = render({ ...STRONG_RESULT, document_type: "ato_normativo", judgment_date: "1995-02-13" });
    expect(visibleText(act)).toContain("Data13/02/1995");
    expect(visibleText(act)).not.toContain("Julgado em");
  });

  it("knows the decision types the Python vocabulary declares", () => {
    const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
    const codes = readFileSync(path.join(repo, "shared", "legal", "codes.py"), "utf8");
    const declared = /DECISION_TYPES = frozenset\(\{([^}]*)\}\)/.exec(codes)?.[1] ?? "";
    const types = [...declared.matchAll(/"([a-z_]+)"/g)].map((match) => match[1]);
    expect(types.length).toBeGreaterThan(2);
    for (const kind of types) expect(dateLabel(kind)).toBe("Julgado em");
  });

  it("names the sections as the Python vocabulary does (shared/legal/sections.py SECTION_LABELS)", () => {
    const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
    const sections = readFileSync(path.join(repo, "shared", "legal", "sections.py"), "utf8");
    const declared = /SECTION_LABELS = \{([^}]*)\}/.exec(sections)?.[1] ?? "";
    const labels = Object.fromEntries([...declared.matchAll(/"([a-z_]+)": "([^"]+)"/g)].map((m) => [m[1], m[2]]));
    expect(Object.keys(labels).length).toBeGreaterThan(10);
    expect(SECTION_LABELS).toEqual(labels);
  });
});

