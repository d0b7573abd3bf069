// The firm's thesaurus (issue 34, item 4): the API's shapes (services/search/routers/thesaurus.py) and the words the
// "Tesauro" page makes of them, kept pure so they are tested without a browser.

/** One of the firm's sets: the names one concept goes by in this firm (GET /thesaurus). */
export interface FirmConcept {
  id: number;
  names: string[];
  created_by: string;
  created_at: string;
  updated_by: string;
  updated_at: string;
}

export interface ThesaurusPage {
  items: FirmConcept[];
  total: number;
  limit: number;
  offset: number;
}

/** The general concepts shipped with the code (GET /thesaurus/base): the base, not edited on the page. */
export interface BasePage {
  items: { names: string[] }[];
  total: number;
  limit: number;
  offset: number;
}

export const THESAURUS_PAGE_SIZE = 50;
export const BASE_PAGE_SIZE = 200;

/** Case and accents aside, as the search matches names ("Contrato Ipê" and "contrato ipe" are one name). */
function folded(name: string): string {
  return name.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

/** The names typed one per line: spaces collapsed, empty lines dropped, a repeat (case and accents aside) kept once. */
export function namesFromText(text: string): string[] {
  const seen = new Set<string>();
  const names: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const name = line.replace(/\s+/g, " ").trim();
    if (!name || seen.has(folded(name))) continue;
    seen.add(folded(name));
    names.push(name);
  }
  return names;
}

/** Why these names cannot be a set, in the lawyer's words; "" when they can. */
export function namesProblem(names: string[]): string {
  if (names.length < 2) return "Escreva pelo menos dois nomes diferentes do mesmo conceito, um por linha.";
  if (names.length > 50) return "Um conjunto tem no máximo 50 nomes.";
  const long = names.find((name) => name.length > 200);
  if (long) return `O nome “${long.slice(0, 40)}…” passa de 200 caracteres.`;
  const blank = names.find((name) => !/[\p{L}\p{N}]/u.test(name));
  if (blank) return `O nome “${blank}” não tem letra nem número.`;
  return "";
}

/** "Contrato Jatobá = locação built to suit": how a set reads in a list. */
export function setLabel(names: string[]): string {
  return names.join(" = ");
}

export function setsCount(count: number): string {
  return count === 1 ? "1 conjunto" : `${count} conjuntos`;
}
