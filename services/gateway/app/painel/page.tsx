import { PanelJudgePage } from "../../components/PanelJudgePage";
import { may } from "../../lib/identity";
import { requireIdentity } from "../../lib/server";

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

// A blind panel (issue 20, item 3): /painel?id=ID for an invited judge; without an id, administrators see the
// panels and their reports. The API decides who may judge (404 for a panel that is not theirs).
export default async function Panel({ searchParams }: Props) {
  const params = await searchParams;
  const id = typeof params.id === "string" && /^[0-9a-f]{6,32}$/.test(params.id) ? params.id : null;
  const identity = await requireIdentity(id ? `/painel?id=${id}` : "/painel");
  return <PanelJudgePage panelId={id} admin={may(identity, "admin")} />;
}
