// History and saved searches (/historico, /pesquisas, "Salvar pesquisa"; issue 34) in a real browser (Debian's
// chromium driven by playwright-core) against a running stack. tests/e2e/test_gateway_research.py uploads the
// documents, saves one search for a lawyer through the API as if before they were indexed, and runs this with:
//   GATEWAY_URL    gateway of a stack with sign-in
//   LAWYER, LAWYER_PASSWORD   who signs in (contencioso): her saved search SAVED_NAME has EXPECTED_NEW new works;
//                  WALLED_SEARCH's only match is WALLED_TITLE, a document only "socios" may see
//   QUERY          a query that finds decisions; SCREENSHOTS: where to save screenshots, if set
//   CHROMIUM       the browser (default /usr/bin/chromium)
// Prints one line per scenario and exits non-zero if any failed.
import assert from "node:assert/strict";
import path from "node:path";
import { axeViolations, launch, need, PHONE, runner, searchFromHome, sessionOf } from "./harness.mjs";

const env = process.env;
const GW = need("GATEWAY_URL");
const QUERY = need("QUERY");
const SAVED = need("SAVED_NAME");
const EXPECTED = Number(need("EXPECTED_NEW"));
const SHOTS = env.SCREENSHOTS || "";

const browser = await launch();
const { scenario, finish } = runner(browser, { timeout: 60_000 });
const lawyer = await sessionOf(browser, GW, need("LAWYER"), need("LAWYER_PASSWORD"));

async function noOverflow(page, what) {
  const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(wide <= 0, `${what} is ${wide} px wider than the screen`);
}

await scenario(
  "a lawyer sees what is new in a saved search, opens it, and the count is reset",
  async (context) => {
    const page = await context.newPage();
    await page.goto(`${GW}/pesquisas`);
    const badge = page.locator(".new-count").first();
    await badge.waitFor();
    const words = EXPECTED === 1 ? "1 novo" : `${EXPECTED} novos`;
    assert.equal((await badge.innerText()).split("\n")[0], words);
    assert.equal(await badge.getAttribute("title"), `${words} desde a sua última visita`);
    const walled = page.locator(".research-item", { has: page.getByRole("link", { name: need("WALLED_SEARCH"), exact: true }) });
    assert.equal(await walled.locator(".new-count").count(), 0, "a search whose only news is walled off from her counts none");
    assert.deepEqual(await axeViolations(page), []);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, "saved-searches.png"), fullPage: false });

    await page.getByRole("link", { name: SAVED, exact: true }).click();
    await page.getByRole("heading", { level: 1, name: SAVED }).waitFor();
    await page.getByRole("heading", { level: 2, name: "Novos desde a sua última visita" }).waitFor();
    const items = page.locator(".research-item");
    await items.first().waitFor();
    assert.equal(await items.count(), EXPECTED);
    const text = await page.locator("main").innerText();
    assert.ok(!text.includes(need("WALLED_TITLE")), "an alert named a document walled off from her");
    assert.match(text, /Relevância (forte|provável)/);
    assert.deepEqual(await axeViolations(page), []);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, "saved-search.png"), fullPage: true });

    await page.getByRole("link", { name: "← Pesquisas salvas" }).click();
    await page.getByRole("link", { name: SAVED, exact: true }).waitFor();
    assert.equal(await page.locator(".new-count").count(), 0, "opening the search reset its count");

    await page.getByRole("link", { name: need("WALLED_SEARCH"), exact: true }).click();
    await page.getByText("Nada novo desde a sua última visita.").waitFor();
    assert.ok(!(await page.locator("main").innerText()).includes(need("WALLED_TITLE")));
  },
  { storageState: lawyer },
);

await scenario(
  "a lawyer saves the search on the page, and finds it and its history again",
  async (context) => {
    const page = await context.newPage();
    await searchFromHome(page, GW, QUERY);
    await page.getByRole("button", { name: "Salvar pesquisa" }).click();
    const form = page.getByRole("form", { name: "Salvar pesquisa" });
    assert.equal(await form.getByLabel("Nome").inputValue(), QUERY, "the name defaults to the query");
    await form.getByLabel("Nome").fill("Recursos sobre dano moral");
    await form.getByLabel("E-mail para os novos (opcional)").fill(`${need("LAWYER")}@firma.com.br`);
    assert.deepEqual(await axeViolations(page), []);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, "save-search.png"), fullPage: false });
    await form.getByRole("button", { name: "Salvar", exact: true }).click();
    await page.getByText("Pesquisa salva como").waitFor();
    await page.getByRole("link", { name: "“Recursos sobre dano moral”" }).click();
    await page.getByRole("heading", { level: 1, name: "Recursos sobre dano moral" }).waitFor();
    await page.getByText("Nada novo desde a sua última visita.").waitFor();

    await page.goto(`${GW}/historico`);
    await page.getByRole("heading", { level: 1, name: "Histórico" }).waitFor();
    await page.getByRole("link", { name: QUERY, exact: true }).waitFor();
    assert.deepEqual(await axeViolations(page), []);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, "history.png"), fullPage: false });
    await page.getByRole("link", { name: `Repetir a pesquisa “${QUERY}”` }).click();
    await page.locator("article.result").first().waitFor();
    assert.equal(await page.locator("#consulta").inputValue(), QUERY, "Repetir runs the same query");
  },
  { storageState: lawyer },
);

await scenario(
  "on a phone, both lists fit the screen",
  async (context) => {
    const page = await context.newPage();
    await page.goto(`${GW}/pesquisas`);
    await page.getByRole("link", { name: "Recursos sobre dano moral", exact: true }).waitFor();
    await noOverflow(page, "the saved searches");
    assert.deepEqual(await axeViolations(page), []);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, "saved-searches-mobile.png"), fullPage: true });
    await page.goto(`${GW}/historico`);
    await page.getByRole("link", { name: QUERY, exact: true }).waitFor();
    await noOverflow(page, "the history");
    assert.deepEqual(await axeViolations(page), []);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, "history-mobile.png"), fullPage: true });
    await page.getByRole("button", { name: "Limpar histórico" }).waitFor();
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Limpar histórico" }).click();
    await page.getByText("Nenhuma pesquisa no seu histórico.").waitFor();
  },
  { storageState: lawyer, viewport: PHONE },
);

await finish();
