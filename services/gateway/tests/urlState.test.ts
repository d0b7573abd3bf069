import { describe, expect, it } from "vitest";
import {
  apiFilters,
  EMPTY_STATE,
  paramsFromRecord,
  paramsFromState,
  type SearchState,
  stateFromParams,
} from "../lib/urlState";

const FULL: SearchState = {
  q: "responsabilidade solidária do tomador",
  type: "ato_normativo",
  subtype: "resolucao",
  court: "cnj",
  from: "2015-01-01",
  to: "2020-12-31",
  relator: "Min. Nancy Andrighi",
  judgingBody: "Terceira Turma",
  citedLaw: "Lei 8.078/1990, art. 14",
};

describe("URL state", () => {
  it("round-trips every field through the query string", () => {
    const query = paramsFromState(FULL).toString();
    expect(stateFromParams(new URLSearchParams(query))).toEqual(FULL);
  });

  it("uses short Portuguese parameter names and leaves empty fields out", () => {
    const query = paramsFromState({ ...EMPTY_STATE, q: "dano moral", court: "tjsp" }).toString();
    expect(query).toBe("q=dano+moral&tribunal=tjsp");
    expect(paramsFromState({ ...EMPTY_STATE, q: "x", subtype: "artigo" }).toString()).toBe("q=x&subtipo=artigo");
  });

  it("drops malformed dates and missing values", () => {
    const state = stateFromParams(new URLSearchParams("q=x&de=ontem&ate=2020-02-30x"));
    expect(state).toEqual({ ...EMPTY_STATE, q: "x" });
  });

  it("takes the first value of a repeated parameter from Next's record", () => {
    const params = paramsFromRecord({ q: ["um", "dois"], tipo: "parecer", nada: undefined });
    expect(stateFromParams(params)).toMatchObject({ q: "um", type: "parecer" });
  });

  it("maps the state to the API's filters", () => {
    expect(apiFilters(FULL)).toEqual({
      document_type: "ato_normativo",
      document_subtype: "resolucao",
      court: "cnj",
      date_from: "2015-01-01",
      date_to: "2020-12-31",
      relator: "Min. Nancy Andrighi",
      judging_body: "Terceira Turma",
      cited_law: "Lei 8.078/1990, art. 14",
    });
    expect(apiFilters({ ...EMPTY_STATE, q: "x" })).toEqual({});
  });
});
