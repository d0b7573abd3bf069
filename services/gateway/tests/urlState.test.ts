import { describe, expect, it } from "vitest";
import {
  activeFilterCount,
  apiFilters,
  EMPTY_STATE,
  MAX_PAGE,
  offsetOf,
  pageCount,
  paramsFromRecord,
  paramsFromState,
  type SearchState,
  stateFromParams,
} from "../lib/urlState";

const FULL: SearchState = {
  q: "responsabilidade solidária do tomador",
  type: ["ato_normativo", "acordao"],
  subtype: ["resolucao"],
  court: ["stj", "tjsp"],
  proceduralClass: ["Recurso Especial"],
  relator: ["Min. Nancy Andrighi"],
  judgingBody: ["Terceira Turma"],
  qualified: ["repetitivo", "repercussao_geral"],
  from: "2015-01-01",
  to: "2020-12-31",
  citedLaw: "Lei 8.078/1990, art. 14",
  sort: "date",
  page: 3,
  similar: 8123,
};

describe("URL state", () => {
  it("round-trips every field through the query string, several values of a facet included", () => {
    const query = paramsFromState(FULL).toString();
    expect(stateFromParams(new URLSearchParams(query))).toEqual(FULL);
    expect(query).toContain("tribunal=stj&tribunal=tjsp");
    expect(query).toContain("classe=Recurso+Especial");
    expect(query).toContain("precedente=repetitivo&precedente=repercussao_geral");
    expect(query).toContain("ordem=data&pagina=3&similar=8123");
  });

  it("keeps 'Mais como este' in the URL (?similar=<passage_id>) and drops an id that is not one", () => {
    const query = paramsFromState({ ...EMPTY_STATE, q: "arbitragem", similar: 42 }).toString();
    expect(query).toBe("q=arbitragem&similar=42");
    expect(stateFromParams(new URLSearchParams("similar=42")).similar).toBe(42);
    for (const bad of ["0", "-3", "4.5", "abc", "1e3", "9999999999999999", ""]) {
      expect(stateFromParams(new URLSearchParams({ similar: bad })).similar, bad).toBeNull();
    }
    expect(paramsFromState({ ...EMPTY_STATE, q: "x" }).has("similar")).toBe(false);
  });

  it("uses short Portuguese parameter names and leaves empty fields, the first page and relevance out", () => {
    const query = paramsFromState({ ...EMPTY_STATE, q: "dano moral", court: ["tjsp"] }).toString();
    expect(query).toBe("q=dano+moral&tribunal=tjsp");
    expect(paramsFromState({ ...EMPTY_STATE, q: "x", subtype: ["artigo"] }).toString()).toBe("q=x&subtipo=artigo");
  });

  it("drops malformed dates, pages, orders, repeated and empty values", () => {
    const state = stateFromParams(new URLSearchParams("q=x&de=ontem&ate=2020-02-30x&pagina=-2&ordem=xyz&tribunal="));
    expect(state).toEqual({ ...EMPTY_STATE, q: "x" });
    expect(stateFromParams(new URLSearchParams("tribunal=stj&tribunal=stj")).court).toEqual(["stj"]);
    expect(stateFromParams(new URLSearchParams("pagina=abc")).page).toBe(1);
    expect(stateFromParams(new URLSearchParams("pagina=99999")).page).toBe(MAX_PAGE);
  });

  it("keeps every value of a repeated parameter from Next's record", () => {
    const params = paramsFromRecord({ q: "um", tipo: ["parecer", "acordao"], nada: undefined });
    expect(stateFromParams(params)).toMatchObject({ q: "um", type: ["parecer", "acordao"] });
  });

  it("maps the state to the API's filters, a facet as a list", () => {
    expect(apiFilters(FULL)).toEqual({
      document_type: ["ato_normativo", "acordao"],
      document_subtype: ["resolucao"],
      court: ["stj", "tjsp"],
      procedural_class: ["Recurso Especial"],
      date_from: "2015-01-01",
      date_to: "2020-12-31",
      relator: ["Min. Nancy Andrighi"],
      judging_body: ["Terceira Turma"],
      qualified_precedent: ["repetitivo", "repercussao_geral"],
      cited_law: "Lei 8.078/1990, art. 14",
    });
    expect(apiFilters({ ...EMPTY_STATE, q: "x" })).toEqual({});
  });

  it("pages of ten works by offset, as far as the API's offset of 1,000 reaches", () => {
    expect(offsetOf({ ...EMPTY_STATE, page: 1 })).toBe(0);
    expect(offsetOf({ ...EMPTY_STATE, page: 3 })).toBe(20);
    expect(offsetOf({ ...EMPTY_STATE, page: MAX_PAGE })).toBe(1000);
    expect(pageCount(0)).toBe(1);
    expect(pageCount(10)).toBe(1);
    expect(pageCount(11)).toBe(2);
    expect(pageCount(50_000)).toBe(MAX_PAGE);
  });

  it("counts the filters on for the 'Filtros (n)' button", () => {
    expect(activeFilterCount(EMPTY_STATE)).toBe(0);
    expect(activeFilterCount(FULL)).toBe(13);
  });
});
