import { SearchPage } from "../components/SearchPage";
import { requireIdentity } from "../lib/server";
import { paramsFromRecord, paramsFromState, stateFromParams } from "../lib/urlState";

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function Home({ searchParams }: Props) {
  const state = stateFromParams(paramsFromRecord(await searchParams));
  const query = paramsFromState(state).toString();
  const identity = await requireIdentity(query ? `/?${query}` : "/");
  return (
    <>
      <h1 className="visually-hidden">Pesquisa</h1>
      <SearchPage initial={state} person={identity.user} />
    </>
  );
}
