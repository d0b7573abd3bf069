// The firm's thesaurus on the page (issue 34, item 4): names typed one per line become the set the API keeps, a set
// that is no set is refused in Portuguese before it is sent, the list renders what an administrator acts on, and
// only administrators see "Tesauro" in the menu.
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { SetEditor, ThesaurusList } from "../components/ThesaurusPage";
import { menuFor } from "../lib/identity";
import { type FirmConcept, namesFromText, namesProblem, setLabel, setsCount } from "../lib/thesaurus";

const SET: FirmConcept = {
  id: 3,
  names: ["Contrato Jatobá", "locação built to suit"],
  created_by: "ana",
  created_at: "2026-12-01T10:00:00+00:00",
  updated_by: "bruno",
  updated_at: "2026-12-03T14:05:00+00:00",
};

describe("the names of a set", () => {
  it("are read one per line, spaces collapsed, a repeat (case and accents aside) kept once", () => {
    expect(namesFromText("  Contrato   Jatobá \n\nlocação built to suit\r\ncontrato jatoba\n")).toEqual([
      "Contrato Jatobá",
      "locação built to suit",
    ]);
  });

  it("must be two different names at least, each with a letter or digit, or the page says why", () => {
    expect(namesProblem(namesFromText("Contrato Ipê\ncontrato ipe"))).toMatch(/pelo menos dois nomes diferentes/);
    expect(namesProblem(["Contrato Ipê", "--"])).toBe("O nome “--” não tem letra nem número.");
    expect(namesProblem(["Contrato Ipê", "x".repeat(201)])).toMatch(/passa de 200 caracteres/);
    expect(namesProblem(SET.names)).toBe("");
  });

  it("read as one line, and are counted in Portuguese", () => {
    expect(setLabel(SET.names)).toBe("Contrato Jatobá = locação built to suit");
    expect(setsCount(1)).toBe("1 conjunto");
    expect(setsCount(4)).toBe("4 conjuntos");
  });
});

describe("the list of the firm's sets", () => {
  it("shows each set's names, who changed it last and its actions", () => {
    const html = renderToStaticMarkup(<ThesaurusList items={[SET]} onEdit={() => {}} onRemove={() => {}} />);
    expect(html).toContain("Contrato Jatobá");
    expect(html).toContain("locação built to suit");
    expect(html).toContain("Conjunto 3 · alterado por bruno em");
    expect(html).toContain('aria-label="Editar “Contrato Jatobá = locação built to suit”"');
    expect(html).toContain('aria-label="Remover “Contrato Jatobá = locação built to suit”"');
  });

  it("opens the set being edited as a form with its names, one per line", () => {
    const html = renderToStaticMarkup(
      <ThesaurusList items={[SET]} editing={3} onEdit={() => {}} onSave={() => {}} onCancel={() => {}} />,
    );
    expect(html).toContain("<textarea");
    expect(html).toContain("Contrato Jatobá\nlocação built to suit</textarea>");
    expect(html).toContain(">Salvar</button>");
    expect(html).toContain(">Cancelar</button>");
    expect(html).not.toContain("Remover");
  });

  it("offers an empty form for a new set, with a label the screen reader reads", () => {
    const html = renderToStaticMarkup(<SetEditor label="Nomes do mesmo conceito, um por linha" submit="Incluir" busy={false} onSave={() => {}} />);
    expect(html).toMatch(/<label for="[^"]+">Nomes do mesmo conceito, um por linha<\/label>/);
    expect(html).toContain(">Incluir</button>");
  });
});

describe("the menu", () => {
  it("shows Tesauro to administrators only", () => {
    const admin = { permissions: ["search", "ingest", "review", "admin"] };
    expect(menuFor(admin).map((e) => e.label)).toContain("Tesauro");
    expect(menuFor({ permissions: ["search", "ingest", "review"] }).map((e) => e.label)).not.toContain("Tesauro");
  });
});
