import { SavedSearchesPage } from "../../components/SavedSearchesPage";
import { requireIdentity } from "../../lib/server";

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

// The person's saved searches and what is new in each (issue 34, item 1); /pesquisas?id=N opens one.
export default async function SavedSearches({ searchParams }: Props) {
  const params = await searchParams;
  const id = typeof params.id === "string" && /^[1-9]\d{0,15}$/.test(params.id) ? Number(params.id) : null;
  await requireIdentity(id !== null ? `/pesquisas?id=${id}` : "/pesquisas");
  return <SavedSearchesPage selectedId={id} />;
}
