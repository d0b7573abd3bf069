import { HistoryPage } from "../../components/HistoryPage";
import { requireIdentity } from "../../lib/server";

// The person's own recent searches (issue 34, item 5); the API shows nobody else's.
export default async function History() {
  await requireIdentity("/historico");
  return <HistoryPage />;
}
