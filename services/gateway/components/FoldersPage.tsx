"use client";

import { type FormEvent, useCallback, useEffect, useState } from "react";
import { callApi } from "../lib/apiClient";
import {
  exportHref,
  type Folder,
  type FolderContents,
  type FolderItem,
  type FolderList,
  FOLDERS_PER_PAGE,
  folderHref,
  folderPath,
  foldersPath,
  ITEMS_PER_PAGE,
  itemCount,
  NAME_MAX,
  NOTE_MAX,
  pageCount,
  parseGroups,
  quoted,
  sharingLine,
} from "../lib/folders";
import { apiHref, documentHref, formatDate, formatDateTime } from "../lib/format";
import "./folders.css";

/** Pages of a list as links ("Anterior", "Página 2 de 3", "Próxima"), or nothing when one page holds it all. */
function Pager({ page, pages, href, label }: { page: number; pages: number; href: (page: number) => string; label: string }) {
  if (pages <= 1) return null;
  return (
    <nav className="pager" aria-label={label}>
      {page > 1 ? <a href={href(page - 1)}>Anterior</a> : <span aria-hidden="true" />}
      <span>
        Página {page} de {pages}
      </span>
      {page < pages ? <a href={href(page + 1)}>Próxima</a> : <span aria-hidden="true" />}
    </nav>
  );
}

function foldersPageHref(page: number): string {
  return page > 1 ? `/pastas?pagina=${page}` : "/pastas";
}

interface ListProps {
  list: FolderList | null;
  page: number;
  error?: string;
  onCreate?: (name: string) => Promise<void>;
}

/** The person's folders and those shared with their groups, with a form to make one. */
export function FolderListView({ list, page, error = "", onCreate }: ListProps) {
  const [name, setName] = useState("");
  const [message, setMessage] = useState("");
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!onCreate || !name.trim()) return;
    try {
      await onCreate(name.trim());
    } catch (err) {
      setMessage(`Não foi possível criar a pasta${err instanceof Error ? ` (${err.message})` : ""}.`);
    }
  };
  return (
    <section className="folders" aria-labelledby="pastas-titulo">
      <h1 id="pastas-titulo">Pastas</h1>
      <p className="hint">
        Guarde resultados por cliente ou caso: na pesquisa, use “Adicionar à pasta” em um resultado. Uma pasta pode ser
        compartilhada com os seus grupos e exportada para Word ou para texto.
      </p>
      <form className="folder-create" onSubmit={(event) => void submit(event)}>
        <label htmlFor="nova-pasta">Nova pasta</label>
        <input id="nova-pasta" required maxLength={NAME_MAX} value={name} placeholder="Cliente Acme: rescisão" onChange={(e) => setName(e.target.value)} />
        <button type="submit">Criar pasta</button>
        <span role="status" aria-live="polite" className="folder-status">
          {message}
        </span>
      </form>
      {error && (
        <p className="folder-error" role="alert">
          {error}
        </p>
      )}
      {list === null && !error && <p className="muted">Carregando…</p>}
      {list !== null && list.total === 0 && <p className="folder-empty">Você ainda não tem pastas.</p>}
      {list !== null && list.folders.length > 0 && (
        <ul className="folder-list">
          {list.folders.map((folder) => (
            <li key={folder.id}>
              <a className="folder-name" href={folderHref(folder.id)}>
                {folder.name}
              </a>{" "}
              <span className="folder-count">({itemCount(folder.items)})</span>
              <span className="folder-sharing">{sharingLine(folder)}</span>
              <span className="folder-updated">alterada em {formatDateTime(folder.updated_at)}</span>
            </li>
          ))}
        </ul>
      )}
      {list !== null && (
        <Pager page={page} pages={pageCount(list.total, FOLDERS_PER_PAGE)} href={foldersPageHref} label="Páginas de pastas" />
      )}
    </section>
  );
}

/** The list of folders, fetched in the browser through the /api proxy. */
export function FoldersPage({ page = 1 }: { page?: number }) {
  const [list, setList] = useState<FolderList | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    callApi<FolderList>(foldersPath(page))
      .then(setList)
      .catch((err: unknown) => setError(`Não foi possível carregar as pastas${err instanceof Error ? ` (${err.message})` : ""}.`));
  }, [page]);
  const create = async (name: string) => {
    const folder = await callApi<Folder>("/folders", { method: "POST", body: JSON.stringify({ name }) });
    window.location.assign(folderHref(folder.id));
  };
  return <FolderListView list={list} page={page} error={error} onCreate={create} />;
}

interface ItemProps {
  item: FolderItem;
  position: number;
  onNote?: (item: FolderItem, note: string | null) => Promise<void>;
  onRemove?: (item: FolderItem) => Promise<void>;
}

/** One kept result: its citation as the heading, the passage quoted with its page, the ementa, the note. */
export function FolderItemCard({ item, position, onNote, onRemove }: ItemProps) {
  const [editing, setEditing] = useState(false);
  const [note, setNote] = useState(item.note ?? "");
  const [message, setMessage] = useState("");
  const headingId = `item-${position}`;
  const saveNote = async (event: FormEvent) => {
    event.preventDefault();
    if (!onNote) return;
    try {
      await onNote(item, note.trim() || null);
      setEditing(false);
      setMessage("Nota salva.");
    } catch (err) {
      setMessage(`Não foi possível salvar a nota${err instanceof Error ? ` (${err.message})` : ""}.`);
    }
  };
  const meta = [item.document_type_label, item.court_label, formatDate(item.document_date)].filter(Boolean);
  return (
    <article className="folder-item" aria-labelledby={headingId} data-item-id={item.id}>
      <h2 id={headingId} className="result-title">
        {item.citation || item.document_title || "Documento sem título"}
      </h2>
      {meta.length > 0 && (
        <p className="result-meta">
          {meta.map((value) => (
            <span key={value} className="tag">
              {value}
            </span>
          ))}
        </p>
      )}
      <blockquote className="passage">{quoted(item)}</blockquote>
      {item.ementa && (
        <details className="ementa">
          <summary>Ementa</summary>
          <p className="ementa-text">{item.ementa}</p>
        </details>
      )}
      {item.note && !editing && <p className="folder-note">Nota: {item.note}</p>}
      {editing && (
        <form className="folder-note-form" onSubmit={(event) => void saveNote(event)}>
          <label htmlFor={`${headingId}-nota`}>Nota</label>
          <textarea id={`${headingId}-nota`} rows={3} maxLength={NOTE_MAX} value={note} onChange={(e) => setNote(e.target.value)} />
          <button type="submit">Salvar nota</button>
        </form>
      )}
      <p className="folder-item-actions">
        <a href={apiHref(item.document_url, documentHref(item.document_id, item.page_number))} target="_blank" rel="noopener noreferrer">
          Abrir o documento na página {item.page_number}
          <span className="visually-hidden"> (abre em nova aba)</span>
        </a>
        {onNote && (
          <button type="button" className="link-button" aria-expanded={editing} aria-describedby={headingId} onClick={() => setEditing(!editing)}>
            {item.note ? "Editar nota" : "Acrescentar nota"}
          </button>
        )}
        {onRemove && (
          <button type="button" className="link-button folder-remove" aria-describedby={headingId} onClick={() => void onRemove(item)}>
            Tirar da pasta
          </button>
        )}
        <span className="folder-added">
          incluído por {item.added_by} em {formatDateTime(item.added_at)}
        </span>
      </p>
      <span role="status" aria-live="polite" className="folder-status">
        {message}
      </span>
    </article>
  );
}

interface ViewProps {
  contents: FolderContents;
  page: number;
  /** The person's groups: the ones they may share with (the API refuses others). */
  groups: string[];
  onNote?: ItemProps["onNote"];
  onRemove?: ItemProps["onRemove"];
  onShare?: (groups: string[]) => Promise<void>;
  onRename?: (name: string) => Promise<void>;
  onDelete?: () => Promise<void>;
}

/** A folder: its name and who sees it, the export buttons, the owner's controls, its items, page by page. */
export function FolderView({ contents, page, groups, onNote, onRemove, onShare, onRename, onDelete }: ViewProps) {
  const { folder, items, total } = contents;
  const [shared, setShared] = useState(folder.shared_groups.join(", "));
  const [name, setName] = useState(folder.name);
  const [message, setMessage] = useState("");
  const act = async (what: () => Promise<void>, done: string, failed: string) => {
    try {
      await what();
      setMessage(done);
    } catch (err) {
      setMessage(`${failed}${err instanceof Error ? ` (${err.message})` : ""}.`);
    }
  };
  const first = (page - 1) * ITEMS_PER_PAGE;
  return (
    <section className="folder" aria-labelledby="pasta-titulo">
      <p className="breadcrumb">
        <a href="/pastas">Pastas</a>
      </p>
      <h1 id="pasta-titulo">{folder.name}</h1>
      <p className="folder-sharing">
        {sharingLine(folder)} · {itemCount(total)}
      </p>
      <p className="folder-export">
        <a className="button-link" href={exportHref(folder.id, "docx")} download>
          Exportar para Word (DOCX)
        </a>
        <a className="button-link" href={exportHref(folder.id, "text")} download>
          Exportar texto para a petição
        </a>
      </p>
      {folder.mine && (
        <details className="folder-settings">
          <summary>Renomear, compartilhar ou excluir</summary>
          <form
            onSubmit={(event) => {
              event.preventDefault();
              if (onRename) void act(() => onRename(name.trim()), "Pasta renomeada.", "Não foi possível renomear");
            }}
          >
            <label htmlFor="pasta-nome">Nome</label>
            <input id="pasta-nome" required maxLength={NAME_MAX} value={name} onChange={(e) => setName(e.target.value)} />
            <button type="submit">Renomear</button>
          </form>
          <form
            onSubmit={(event) => {
              event.preventDefault();
              if (onShare) void act(() => onShare(parseGroups(shared)), "Compartilhamento salvo.", "Não foi possível compartilhar");
            }}
          >
            <label htmlFor="pasta-grupos">Compartilhar com os grupos (separados por vírgula)</label>
            <input id="pasta-grupos" value={shared} list="pasta-meus-grupos" onChange={(e) => setShared(e.target.value)} />
            <datalist id="pasta-meus-grupos">
              {groups.map((group) => (
                <option key={group} value={group} />
              ))}
            </datalist>
            <p className="hint">Seus grupos: {groups.length > 0 ? groups.join(", ") : "nenhum"}. Quem compartilha a pasta vê só os documentos que já pode ver.</p>
            <button type="submit">Salvar compartilhamento</button>
          </form>
          <button
            type="button"
            className="danger"
            onClick={() => {
              if (onDelete && window.confirm(`Excluir a pasta “${folder.name}”? Os documentos não são afetados.`)) void onDelete();
            }}
          >
            Excluir a pasta
          </button>
        </details>
      )}
      <p role="status" aria-live="polite" className="folder-status">
        {message}
      </p>
      {total === 0 && <p className="folder-empty">Nenhum item. Na pesquisa, use “Adicionar à pasta” em um resultado.</p>}
      {items.map((item, i) => (
        <FolderItemCard key={item.id} item={item} position={first + i + 1} onNote={onNote} onRemove={onRemove} />
      ))}
      <Pager page={page} pages={pageCount(total, ITEMS_PER_PAGE)} href={(p) => folderHref(folder.id, p)} label="Páginas de itens" />
    </section>
  );
}

/** One folder, fetched in the browser; its changes sent through the /api proxy, then read back. */
export function FolderPage({ folderId, page = 1, groups }: { folderId: string; page?: number; groups: string[] }) {
  const [contents, setContents] = useState<FolderContents | null>(null);
  const [error, setError] = useState("");
  const load = useCallback(() => {
    callApi<FolderContents>(folderPath(folderId, page))
      .then(setContents)
      .catch((err: unknown) => setError(err instanceof Error ? err.message : "erro"));
  }, [folderId, page]);
  useEffect(load, [load]);
  if (error) {
    return (
      <section className="folder">
        <p className="breadcrumb">
          <a href="/pastas">Pastas</a>
        </p>
        <h1>Pasta não encontrada</h1>
        <p role="alert">Esta pasta não existe ou não está compartilhada com você ({error}).</p>
      </section>
    );
  }
  if (!contents) return <p className="muted">Carregando…</p>;
  const base = `/folders/${encodeURIComponent(folderId)}`;
  const json = (method: string, body: unknown) => ({ method, body: JSON.stringify(body) });
  return (
    <FolderView
      contents={contents}
      page={page}
      groups={groups}
      onNote={async (item, note) => {
        await callApi<FolderItem>(`${base}/items/${item.id}`, json("PATCH", { note }));
        load();
      }}
      onRemove={async (item) => {
        await fetch(`/api${base}/items/${item.id}`, { method: "DELETE" });
        load();
      }}
      onShare={async (shared) => {
        await callApi<Folder>(base, json("PATCH", { shared_groups: shared }));
        load();
      }}
      onRename={async (name) => {
        await callApi<Folder>(base, json("PATCH", { name }));
        load();
      }}
      onDelete={async () => {
        await fetch(`/api${base}`, { method: "DELETE" });
        window.location.assign("/pastas");
      }}
    />
  );
}
