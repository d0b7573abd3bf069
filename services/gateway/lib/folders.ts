// Folders per matter ("pastas", issue 34): what the page sends to /folders and /export and how it reads them back
// (services/search/routers/folders.py and export.py). Kept free of React so it is tested as plain functions.

export interface Folder {
  id: string;
  name: string;
  owner: string;
  shared_groups: string[];
  created_at: string;
  updated_at: string;
  /** Items whose document the person may see now. */
  items: number;
  /** The person owns it: they may rename, share and delete it. */
  mine: boolean;
}

export interface FolderList {
  folders: Folder[];
  total: number;
  limit: number;
  offset: number;
}

export interface FolderItem {
  id: number;
  document_id: string;
  passage_id: number;
  work_id: string;
  document_title: string;
  document_type: string | null;
  document_type_label: string | null;
  court: string | null;
  court_label: string | null;
  document_date: string | null;
  citation: string | null;
  ementa: string | null;
  passage: string;
  page_number: number;
  page_end: number;
  note: string | null;
  added_by: string;
  added_at: string;
  updated_at: string;
  document_url: string;
}

export interface FolderContents {
  folder: Folder;
  items: FolderItem[];
  total: number;
  limit: number;
  offset: number;
}

/** Folders and items shown per page. */
export const FOLDERS_PER_PAGE = 20;
export const ITEMS_PER_PAGE = 20;
/** The API's limits (services/search/routers/folders.py). */
export const NAME_MAX = 200;
export const NOTE_MAX = 4000;

const FOLDER_ID = /^[0-9a-f]{6,32}$/;

/** A folder id as the API makes them (short hex); anything else is no folder. */
export function validFolderId(value: unknown): string | null {
  return typeof value === "string" && FOLDER_ID.test(value) ? value : null;
}

/** The page of one folder, on page `page` (from 1) of its items. */
export function folderHref(id: string, page = 1): string {
  const params = new URLSearchParams({ id });
  if (page > 1) params.set("pagina", String(page));
  return `/pastas?${params.toString()}`;
}

/** GET /folders of page `page` (from 1). */
export function foldersPath(page = 1, perPage = FOLDERS_PER_PAGE): string {
  return `/folders?limit=${perPage}&offset=${(Math.max(1, page) - 1) * perPage}`;
}

/** GET /folders/{id} of page `page` (from 1) of its items. */
export function folderPath(id: string, page = 1, perPage = ITEMS_PER_PAGE): string {
  return `/folders/${encodeURIComponent(id)}?limit=${perPage}&offset=${(Math.max(1, page) - 1) * perPage}`;
}

/** Where the browser downloads a folder's export, through the gateway's /api proxy. */
export function exportHref(id: string, format: "docx" | "text"): string {
  return `/api/folders/${encodeURIComponent(id)}/export?format=${format}`;
}

/** How many pages a list of `total` holds. */
export function pageCount(total: number, perPage: number): number {
  return Math.max(1, Math.ceil(total / perPage));
}

/** The body of POST /folders/{id}/items for a result of the search page; an empty note is none. */
export function addItemBody(
  result: { document_id: string; passage_id?: number | null },
  note: string | null | undefined,
): { document_id: string; passage_id: number; note?: string } {
  const body: { document_id: string; passage_id: number; note?: string } = {
    document_id: result.document_id,
    passage_id: result.passage_id ?? 0,
  };
  const text = (note ?? "").trim();
  if (text) body.note = text.slice(0, NOTE_MAX);
  return body;
}

/** "contencioso, socios" as the API's list of groups: trimmed, no empty ones, each once. */
export function parseGroups(text: string): string[] {
  return [...new Set(text.split(",").map((g) => g.trim()).filter(Boolean))];
}

/** "3 itens", "1 item", "nenhum item". */
export function itemCount(n: number): string {
  if (n === 0) return "nenhum item";
  return n === 1 ? "1 item" : `${n} itens`;
}

/** Who may see the folder, as its line on the list says it. */
export function sharingLine(folder: Pick<Folder, "mine" | "owner" | "shared_groups">): string {
  const owner = folder.mine ? "Sua pasta" : `Pasta de ${folder.owner}`;
  if (folder.shared_groups.length === 0) return folder.mine ? `${owner}, só você a vê` : owner;
  return `${owner}, compartilhada com ${folder.shared_groups.join(", ")}`;
}

/** The line a screen reader hears, and everyone sees, after a result is kept or refused. */
export function addMessage(outcome: "added" | "already" | "failed", folderName: string, detail = ""): string {
  if (outcome === "failed") return `Não foi possível adicionar à pasta${detail ? ` (${detail})` : ""}. Tente de novo.`;
  return outcome === "added" ? `Adicionado à pasta “${folderName}”.` : `Já estava na pasta “${folderName}”.`;
}

/** The quotation as a petition gives it: the passage between quotation marks, on one line, with its page. */
export function quoted(item: Pick<FolderItem, "passage" | "page_number" | "page_end">): string {
  const pages = item.page_end > item.page_number ? `p. ${item.page_number}-${item.page_end}` : `p. ${item.page_number}`;
  return `“${item.passage.replace(/\s+/g, " ").trim()}” (${pages})`;
}
