// Folders per matter ("pastas", issue 34): the card's "Adicionar à pasta", the list of folders, a folder with its
// items, notes, sharing and export buttons as the server renders them, the paths and bodies the page sends, and
// the requests through the gateway's real /api proxy to a fake API that answers as services/search/routers/
// folders.py and export.py do.
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { DELETE as proxyDelete, GET as proxyGet, PATCH as proxyPatch, POST as proxyPost } from "../app/api/[...path]/route";
import { FolderListView, FolderView } from "../components/FoldersPage";
import { ResultCard } from "../components/ResultCard";
import {
  addItemBody,
  addMessage,
  exportHref,
  type Folder,
  type FolderContents,
  type FolderItem,
  folderHref,
  folderPath,
  foldersPath,
  itemCount,
  pageCount,
  parseGroups,
  quoted,
  sharingLine,
  validFolderId,
} from "../lib/folders";
import { type FakeApi, type Handler, problem, STRONG_RESULT, startFakeApi } from "./fakeApi";

const FOLDER: Folder = {
  id: "a1b2c3d4e5f6",
  name: "Cliente Acme: negativação",
  owner: "ana",
  shared_groups: ["contencioso"],
  created_at: "2026-12-01T10:00:00Z",
  updated_at: "2026-12-02T15:30:00Z",
  items: 2,
  mine: true,
};

const ITEM: FolderItem = {
  id: 7,
  document_id: "5f1e2d3c-0000-4000-8000-000000000001",
  passage_id: 42,
  work_id: "5f1e2d3c-0000-4000-8000-000000000001",
  document_title: "REsp 1.433.940/MG",
  document_type: "acordao",
  document_type_label: "Acórdão",
  court: "stj",
  court_label: "STJ",
  document_date: "2017-09-26",
  citation: "STJ, REsp 1.433.940/MG, Rel. Min. Ricardo Villas Bôas Cueva, Terceira Turma, j. 26/09/2017",
  ementa: "RECURSO ESPECIAL. INSCRIÇÃO INDEVIDA. DANO MORAL.",
  passage: "A inscrição indevida\ngera dano moral  in re ipsa.",
  page_number: 3,
  page_end: 4,
  note: "Usar no item III da inicial.",
  added_by: "bia",
  added_at: "2026-12-02T15:30:00Z",
  updated_at: "2026-12-02T15:30:00Z",
  document_url: "/documents/5f1e2d3c-0000-4000-8000-000000000001?passage=42#page=3",
};

const contents = (overrides: Partial<FolderContents> = {}): FolderContents => ({
  folder: FOLDER,
  items: [ITEM, { ...ITEM, id: 8, passage_id: 43, citation: null, document_title: "Parecer interno", note: null, ementa: null }],
  total: 2,
  limit: 20,
  offset: 0,
  ...overrides,
});

describe("the folder paths and bodies", () => {
  it("page folders and items by limit and offset, and link a folder's page and exports", () => {
    expect(foldersPath()).toBe("/folders?limit=20&offset=0");
    expect(foldersPath(3)).toBe("/folders?limit=20&offset=40");
    expect(folderPath("a1b2c3d4e5f6", 2)).toBe("/folders/a1b2c3d4e5f6?limit=20&offset=20");
    expect(folderHref("a1b2c3d4e5f6")).toBe("/pastas?id=a1b2c3d4e5f6");
    expect(folderHref("a1b2c3d4e5f6", 2)).toBe("/pastas?id=a1b2c3d4e5f6&pagina=2");
    expect(exportHref("a1b2c3d4e5f6", "docx")).toBe("/api/folders/a1b2c3d4e5f6/export?format=docx");
    expect(exportHref("a1b2c3d4e5f6", "text")).toBe("/api/folders/a1b2c3d4e5f6/export?format=text");
    expect([pageCount(0, 20), pageCount(20, 20), pageCount(21, 20)]).toEqual([1, 1, 2]);
    expect(validFolderId("a1b2c3d4e5f6")).toBe("a1b2c3d4e5f6");
    expect([validFolderId("../x"), validFolderId(["a1b2c3"]), validFolderId(undefined)]).toEqual([null, null, null]);
  });

  it("keep a result's document and passage, with a note only when one was written", () => {
    expect(addItemBody(STRONG_RESULT, "  tese central  ")).toEqual({
      document_id: STRONG_RESULT.document_id,
      passage_id: STRONG_RESULT.passage_id,
      note: "tese central",
    });
    expect(addItemBody(STRONG_RESULT, "   ")).not.toHaveProperty("note");
    expect(addItemBody({ document_id: "d" }, null)).toEqual({ document_id: "d", passage_id: 0 });
    expect(addItemBody(STRONG_RESULT, "x".repeat(5000)).note).toHaveLength(4000);
  });

  it("say groups, counts, sharing and outcomes in Portuguese", () => {
    expect(parseGroups(" contencioso, socios,,contencioso ")).toEqual(["contencioso", "socios"]);
    expect([itemCount(0), itemCount(1), itemCount(12)]).toEqual(["nenhum item", "1 item", "12 itens"]);
    expect(sharingLine(FOLDER)).toBe("Sua pasta, compartilhada com contencioso");
    expect(sharingLine({ ...FOLDER, shared_groups: [] })).toBe("Sua pasta, só você a vê");
    expect(sharingLine({ ...FOLDER, mine: false })).toBe("Pasta de ana, compartilhada com contencioso");
    expect(addMessage("added", "Caso X")).toBe("Adicionado à pasta “Caso X”.");
    expect(addMessage("already", "Caso X")).toBe("Já estava na pasta “Caso X”.");
    expect(addMessage("failed", "", "404 document not found")).toBe("Não foi possível adicionar à pasta (404 document not found). Tente de novo.");
    expect(quoted(ITEM)).toBe("“A inscrição indevida gera dano moral in re ipsa.” (p. 3-4)");
    expect(quoted({ ...ITEM, page_end: 3 })).toBe("“A inscrição indevida gera dano moral in re ipsa.” (p. 3)");
  });
});

describe("the card's Adicionar à pasta", () => {
  it("is a labelled button that opens its form, and absent on a result without a passage", () => {
    const html = renderToStaticMarkup(<ResultCard result={STRONG_RESULT} position={3} />);
    expect(html).toContain(
      '<button type="button" class="link-button add-to-folder-toggle" aria-expanded="false" aria-controls="pasta-3-form" aria-describedby="resultado-3">Adicionar à pasta</button>',
    );
    expect(html).toMatch(/<span class="add-to-folder-status" role="status" aria-live="polite"><\/span>/);
    expect(html).not.toMatch(/\son[a-z]+=/i); // no inline handler: the strict CSP would block it
    const none = renderToStaticMarkup(<ResultCard result={{ ...STRONG_RESULT, passage_id: 0 }} position={3} />);
    expect(none).not.toContain("Adicionar à pasta");
  });
});

describe("the Pastas view", () => {
  it("lists each folder with its link, items the person may see, and who sees it", () => {
    const other = { ...FOLDER, id: "ffff00001111", name: "Caso Beta", mine: false, owner: "bia", items: 1 };
    const html = renderToStaticMarkup(<FolderListView list={{ folders: [FOLDER, other], total: 2, limit: 20, offset: 0 }} page={1} />);
    expect(html).toContain('<h1 id="pastas-titulo">Pastas</h1>');
    expect(html).toContain('<a class="folder-name" href="/pastas?id=a1b2c3d4e5f6">Cliente Acme: negativação</a>');
    expect(html).toContain('<span class="folder-count">(2 itens)</span>');
    expect(html).toContain("Pasta de bia, compartilhada com contencioso");
    expect(html).toContain('<label for="nova-pasta">Nova pasta</label>');
    expect(html).not.toContain("Página"); // one page holds them all
    const paged = renderToStaticMarkup(<FolderListView list={{ folders: [FOLDER], total: 45, limit: 20, offset: 20 }} page={2} />);
    expect(paged).toContain('<a href="/pastas">Anterior</a>');
    expect(paged).toContain('<a href="/pastas?pagina=3">Próxima</a>');
    expect(paged.replace(/<!-- -->/g, "")).toContain("<span>Página 2 de 3</span>");
    const empty = renderToStaticMarkup(<FolderListView list={{ folders: [], total: 0, limit: 20, offset: 0 }} page={1} />);
    expect(empty).toContain("Você ainda não tem pastas.");
  });

  it("shows a folder's items with citation, quoted passage and page, ementa, note, and the export buttons", () => {
    const html = renderToStaticMarkup(<FolderView contents={contents()} page={1} groups={["contencioso", "socios"]} />);
    expect(html).toContain('<h1 id="pasta-titulo">Cliente Acme: negativação</h1>');
    expect(html).toContain('<a class="button-link" href="/api/folders/a1b2c3d4e5f6/export?format=docx" download="">Exportar para Word (DOCX)</a>');
    expect(html).toContain('<a class="button-link" href="/api/folders/a1b2c3d4e5f6/export?format=text" download="">Exportar texto para a petição</a>');
    expect(html).toContain(`<h2 id="item-1" class="result-title">${ITEM.citation}</h2>`);
    expect(html).toContain('<h2 id="item-2" class="result-title">Parecer interno</h2>'); // no citation: the title
    expect(html).toContain("<blockquote class=\"passage\">“A inscrição indevida gera dano moral in re ipsa.” (p. 3-4)</blockquote>");
    expect(html).toContain('<p class="folder-note">Nota: Usar no item III da inicial.</p>');
    expect(html).toContain("<summary>Ementa</summary>");
    expect(html).toContain('href="/api/documents/5f1e2d3c-0000-4000-8000-000000000001?passage=42#page=3"');
    expect(html).toContain("<summary>Renomear, compartilhar ou excluir</summary>"); // the owner's controls
    expect(html).toContain('value="contencioso"');
    expect(html).not.toMatch(/\son[a-z]+=/i);
  });

  it("offers a colleague of the group no owner's controls, and pages long folders", () => {
    const theirs = contents({ folder: { ...FOLDER, mine: false, owner: "bia" }, total: 25 });
    const html = renderToStaticMarkup(<FolderView contents={theirs} page={2} groups={["contencioso"]} />);
    expect(html).not.toContain("Renomear, compartilhar ou excluir");
    expect(html).toContain("Pasta de bia, compartilhada com contencioso");
    expect(html).toContain('<h2 id="item-21" class="result-title">'); // numbered on from the page's first
    expect(html).toContain('<a href="/pastas?id=a1b2c3d4e5f6">Anterior</a>');
    const empty = renderToStaticMarkup(<FolderView contents={contents({ items: [], total: 0 })} page={1} groups={[]} />);
    expect(empty).toContain("Nenhum item. Na pesquisa, use “Adicionar à pasta” em um resultado.");
  });
});

describe("folders through the /api proxy", () => {
  let api: FakeApi;
  const items = new Map<number, { note: string | null }>();
  const handler: Handler = ({ method, path, headers, body }) => {
    if (headers.authorization !== "Bearer prs_ana") return problem(401, "authentication required");
    if (method === "GET" && path === "/folders?limit=20&offset=0") return { status: 200, json: { folders: [FOLDER], total: 1, limit: 20, offset: 0 } };
    if (method === "POST" && path === "/folders/a1b2c3d4e5f6/items") {
      const request = JSON.parse(body) as { document_id: string; passage_id: number; note?: string };
      if (request.document_id !== STRONG_RESULT.document_id) return problem(404, "document not found");
      const created = !items.has(request.passage_id);
      items.set(request.passage_id, { note: request.note ?? null });
      return { status: created ? 201 : 200, json: { ...ITEM, passage_id: request.passage_id, note: request.note ?? null } };
    }
    if (method === "PATCH" && path === "/folders/a1b2c3d4e5f6") return { status: 200, json: { ...FOLDER, ...(JSON.parse(body) as object) } };
    if (method === "DELETE" && path === "/folders/a1b2c3d4e5f6/items/7") return { status: 204 };
    if (method === "GET" && path === "/folders/a1b2c3d4e5f6/export?format=docx") {
      return {
        status: 200,
        json: "PK",
        headers: {
          "content-type": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
          "content-disposition": 'attachment; filename="cliente-acme-negativacao.docx"',
        },
      };
    }
    return problem(404, "folder not found");
  };
  beforeAll(async () => {
    api = await startFakeApi(handler);
  });
  afterAll(async () => {
    await api.close();
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  const headers = { host: "gw.test:3000", origin: "http://gw.test:3000", cookie: "precedente_session=prs_ana" };
  const routes = { GET: proxyGet, POST: proxyPost, PATCH: proxyPatch, DELETE: proxyDelete };
  async function call(method: keyof typeof routes, path: string, body?: unknown): Promise<Response> {
    vi.stubEnv("PRECEDENTE_API_URL", api.url);
    const url = new URL(`http://gw.test:3000/api${path}`);
    const request = new Request(url, {
      method,
      headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return routes[method](request, { params: Promise.resolve({ path: url.pathname.split("/").slice(2) }) });
  }

  it("lists, keeps a result (201, then 200), shares, removes, and refuses a hidden document", async () => {
    const listed = await call("GET", foldersPath());
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { folders: Folder[] }).folders.map((f) => f.id)).toEqual([FOLDER.id]);
    const kept = await call("POST", `/folders/${FOLDER.id}/items`, addItemBody(STRONG_RESULT, "tese"));
    expect(kept.status).toBe(201);
    expect(((await kept.json()) as FolderItem).note).toBe("tese");
    expect((await call("POST", `/folders/${FOLDER.id}/items`, addItemBody(STRONG_RESULT, ""))).status).toBe(200);
    const hidden = await call("POST", `/folders/${FOLDER.id}/items`, addItemBody({ document_id: "escondido", passage_id: 9 }, ""));
    expect(hidden.status).toBe(404);
    expect(hidden.headers.get("content-type")).toContain("application/problem+json");
    const shared = await call("PATCH", `/folders/${FOLDER.id}`, { shared_groups: parseGroups("contencioso, socios") });
    expect(((await shared.json()) as Folder).shared_groups).toEqual(["contencioso", "socios"]);
    expect((await call("DELETE", `/folders/${FOLDER.id}/items/7`)).status).toBe(204);
    const sent = api.seen.filter((s) => s.method === "POST").map((s) => JSON.parse(s.body) as unknown);
    expect(sent[0]).toEqual({ document_id: STRONG_RESULT.document_id, passage_id: STRONG_RESULT.passage_id, note: "tese" });
  });

  it("passes an export through as a download that keeps its file name", async () => {
    const answer = await call("GET", exportHref(FOLDER.id, "docx").replace(/^\/api/, ""));
    expect(answer.status).toBe(200);
    // Not a type the page shows in place: an opaque download (lib/proxy.ts), saved under the API's name.
    expect(answer.headers.get("content-type")).toBe("application/octet-stream");
    expect(answer.headers.get("content-disposition")).toBe('attachment; filename="cliente-acme-negativacao.docx"');
  });
});
