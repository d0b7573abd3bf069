// The blind panel's page (/painel, issue 20 item 3) in a real browser (Debian's chromium driven by playwright-core)
// against a running stack. tests/e2e/test_gateway_panel.py makes the panel and runs this with:
//   GATEWAY_URL    gateway of a stack with sign-in
//   JUDGE, JUDGE_PASSWORD   a lawyer (contencioso) invited to the panel
//   PANEL_ID       the panel; QUERIES: its queries, one per line; WALLED_TITLE: a document the judge may not see
//   CHROMIUM       the browser (default /usr/bin/chromium)
// Prints one line per scenario and exits non-zero if any failed.
import assert from "node:assert/strict";
import { launch, need, runner } from "./harness.mjs";

const GW = need("GATEWAY_URL");
const PANEL = need("PANEL_ID");
const QUERIES = need("QUERIES").split("\n");
const WALLED = need("WALLED_TITLE");

const browser = await launch();
const { scenario, finish } = runner(browser);

await scenario("a judge goes through the panel, one query at a time", async (context) => {
  const page = await context.newPage();
  await page.goto(`${GW}/painel?id=${PANEL}`);
  await page.getByLabel("Usuário").fill(need("JUDGE"));
  await page.getByLabel("Senha").fill(need("JUDGE_PASSWORD"));
  await page.getByRole("button", { name: "Entrar" }).click();
  await page.waitForURL(`${GW}/painel?id=${PANEL}`);
  for (const [index, query] of QUERIES.entries()) {
    await page.getByRole("heading", { level: 2, name: query }).waitFor();
    assert.match(await page.locator(".panel-progress").innerText(), new RegExp(`Consulta ${index + 1} de ${QUERIES.length}`));
    const results = page.locator(".panel-results > li");
    const count = await results.count();
    assert.ok(count > 0, `no results for ${query}`);
    const text = await page.locator("main").innerText();
    assert.ok(!text.includes(WALLED), "the page showed a walled document");
    assert.ok(!/current|keyword|\bteam\b/i.test(text), "the page says which ranking picked what");
    const next = page.getByRole("button", { name: "Próxima consulta" });
    assert.equal(await next.isDisabled(), true, "next query before every result is judged");
    for (let i = 0; i < count; i += 1) {
      const item = results.nth(i);
      const button = item.getByRole("button", { name: i === 0 ? "Relevante" : "Não relevante", exact: true });
      await button.click();
      await item.locator('button[aria-pressed="true"]').waitFor();
    }
    await next.click();
  }
  await page.getByText(`Todas as ${QUERIES.length} consultas do painel foram avaliadas`).waitFor();
});

await finish();
