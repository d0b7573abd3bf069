// History and saved searches on the page (issue 34, items 5 and 1): a kept search re-runs as the same search
// (query, filters, order), the counts and grades read as words, and the lists render what a lawyer acts on.
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { HistoryList } from "../components/HistoryPage";
import { NewWorksList, SavedSearchList } from "../components/SavedSearchesPage";
import { SaveSearchButton } from "../components/SaveSearchButton";
import {
  filtersSummary,
  type HistoryEntry,
  type NewWork,
  newCountLabel,
  newCountTitle,
  relevanceLabel,
  type SavedSearch,
  saveBody,
  searchHref,
  stateOfSearch,
} from "../lib/research";
import type { ApiFilters } from "../lib/types";
import { apiFilters, stateFromParams } from "../lib/urlState";

const FILTERS: ApiFilters = {
  court: ["stj", "tjsp"],
  document_type: ["acordao"],
  date_from: "2020-01-01",
  date_to: "2024-12-31",
  relator: ["Nancy Andrighi"],
  cited_law: "CDC, art. 14",
};

const ENTRY: HistoryEntry = {
  id: 7,
  query: "dano moral por inscrição indevida",
  filters: FILTERS,
  sort: "date",
  results: 12,
  at: "2026-12-03T14:05:00+00:00",
};

const SAVED: SavedSearch = {
  id: 3,
  name: "Negativação",
  query: "dano moral por inscrição indevida",
  filters: { court: ["stj"] },
  sort: "relevance",
  email: "ana@firma.com.br",
  created_at: "2026-12-01T10:00:00+00:00",
  last_visited_at: "2026-12-02T10:00:00+00:00",
  new_count: 3,
};

describe("a kept search runs again as it was", () => {
  it("its link carries the query, every filter and the order, and reads back to the same request", () => {
    const href = searchHref(ENTRY.query, ENTRY.filters, ENTRY.sort);
    expect(href.startsWith("/?q=dano+moral")).toBe(true);
    expect(href).toContain("tribunal=stj&tribunal=tjsp");
    expect(href).toContain("ordem=data");
    const state = stateFromParams(new URLSearchParams(href.slice(2)));
    expect(state.q).toBe(ENTRY.query);
    expect(state.sort).toBe("date");
    expect(apiFilters(state)).toEqual(FILTERS); // what the search page sends is what the history kept
  });

  it("a filter sent as one value (the API accepts both) and no filter at all", () => {
    const one = stateOfSearch("x", { court: "stj" as unknown as string[] }, "relevance");
    expect(one.court).toEqual(["stj"]);
    expect(searchHref("x", {}, "relevance")).toBe("/?q=x");
  });
});

describe("words for what was kept", () => {
  it("filters in Portuguese, labelled, and the order only when it is the date", () => {
    expect(filtersSummary(FILTERS, "date")).toBe(
      "Tipo: Acórdão · Tribunal: STJ, TJSP · Relator: Nancy Andrighi · Lei citada: CDC, art. 14 · De 01/01/2020 · Até 31/12/2024 · Ordem: data",
    );
    expect(filtersSummary({}, "relevance")).toBe("");
  });

  it("the count beside a name, and nothing when nothing is new", () => {
    expect(newCountLabel(1)).toBe("1 novo");
    expect(newCountLabel(3)).toBe("3 novos");
    expect(newCountLabel(0)).toBe("");
    expect(newCountLabel(null)).toBe("");
    expect(newCountTitle(3)).toBe("3 novos desde a sua última visita");
    expect(relevanceLabel("forte")).toBe("Relevância forte");
    expect(relevanceLabel("provável")).toBe("Relevância provável");
  });

  it("saving: the name defaults to the query, a blank e-mail is left out", () => {
    expect(saveBody("  ", " dano moral ", {}, "relevance", " ")).toEqual({
      name: "dano moral",
      query: "dano moral",
      filters: {},
      sort: "relevance",
    });
    expect(saveBody("Negativação", "dano moral", { court: ["stj"] }, "date", "ana@firma.com.br").email).toBe("ana@firma.com.br");
  });
});

describe("the Histórico view", () => {
  it("each search with when, what it found, its filters, Repetir and Apagar", () => {
    const html = renderToStaticMarkup(<HistoryList entries={[ENTRY]} onDelete={() => undefined} />);
    const href = searchHref(ENTRY.query, ENTRY.filters, ENTRY.sort).replace(/&/g, "&amp;");
    expect(html).toContain(`<a href="${href}">dano moral por inscrição indevida</a>`);
    expect(html).toContain(">Repetir</a>");
    expect(html).toContain("12 decisões/documentos");
    expect(html).toContain("Tribunal: STJ, TJSP");
    expect(html).toContain('<time dateTime="2026-12-03T14:05:00+00:00">03/12/2026, 11:05</time>'); // São Paulo's time
    expect(html).toContain('aria-label="Apagar “dano moral por inscrição indevida” do histórico"');
  });
});

describe("the Pesquisas salvas view", () => {
  it("the count of new works beside the name, in words for a screen reader too", () => {
    const html = renderToStaticMarkup(<SavedSearchList searches={[SAVED, { ...SAVED, id: 4, name: "Nada novo", new_count: 0 }]} />);
    expect(html).toContain('<a href="/pesquisas?id=3">Negativação</a>');
    expect(html).toContain('<span class="new-count" title="3 novos desde a sua última visita">3 novos');
    expect(html).toContain('<span class="visually-hidden"> desde a sua última visita</span>');
    expect(html.match(/new-count/g)).toHaveLength(1); // "Nada novo" has no badge
    expect(html).toContain("novos por e-mail para ana@firma.com.br");
    expect(html).toContain('href="/?q=dano+moral+por+inscri%C3%A7%C3%A3o+indevida&amp;tribunal=stj">Pesquisar agora</a>');
  });

  it("a new work names its decision, opens its document, and says its grade", () => {
    const work: NewWork = {
      work_id: "w1",
      document_id: "5f0c4b1e-0000-4000-8000-000000000001",
      title: "Acórdão do REsp 1.234.567/SP",
      citation: "STJ, REsp 1.234.567/SP, Rel. Min. Nancy Andrighi, 3ª Turma, j. 12/03/2024",
      court_label: "STJ",
      document_date: "2024-03-12",
      relevance: "provável",
      indexed_at: "2026-12-03T08:00:00+00:00",
      document_url: "/documents/5f0c4b1e-0000-4000-8000-000000000001?passage=9#page=2",
    };
    const html = renderToStaticMarkup(<NewWorksList works={[work]} />);
    expect(html).toContain('href="/api/documents/5f0c4b1e-0000-4000-8000-000000000001?passage=9#page=2"');
    expect(html).toContain("STJ, REsp 1.234.567/SP");
    expect(html).toContain("Acórdão do REsp 1.234.567/SP");
    expect(html).toContain("STJ · 12/03/2024 · Relevância provável · indexado em");
  });

  it("the search page's button, before it is pressed", () => {
    const html = renderToStaticMarkup(<SaveSearchButton query="dano moral" filters={{}} sort="relevance" />);
    expect(html).toBe('<button type="button" class="save-search">Salvar pesquisa</button>');
  });
});
