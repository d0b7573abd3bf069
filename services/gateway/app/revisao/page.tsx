import { ReviewQueuePage } from "../../components/ReviewQueuePage";
import { requireIdentity } from "../../lib/server";

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function Review({ searchParams }: Props) {
  const params = await searchParams;
  const id = typeof params.id === "string" && /^[0-9a-f-]{36}$/i.test(params.id) ? params.id : null;
  await requireIdentity(id ? `/revisao?id=${id}` : "/revisao");
  return <ReviewQueuePage selectedId={id} />;
}
