import { FolderPage, FoldersPage } from "../../components/FoldersPage";
import { validFolderId } from "../../lib/folders";
import { requireIdentity } from "../../lib/server";

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

// Folders per matter (issue 34): /pastas lists the person's folders and those shared with their groups;
// /pastas?id=ID shows one. The API decides who may open a folder (404 for one neither theirs nor shared).
export default async function Pastas({ searchParams }: Props) {
  const params = await searchParams;
  const id = validFolderId(params.id);
  const raw = typeof params.pagina === "string" ? Number.parseInt(params.pagina, 10) : 1;
  const page = Number.isFinite(raw) && raw >= 1 && raw <= 100_000 ? raw : 1;
  const identity = await requireIdentity(id ? `/pastas?id=${id}` : "/pastas");
  return id ? <FolderPage folderId={id} page={page} groups={identity.groups} /> : <FoldersPage page={page} />;
}
