// The firm's thesaurus (/tesauro, issue 34, item 4) in a real browser (Debian's chromium driven by playwright-core)
// against a running stack. tests/e2e/test_gateway_thesaurus.py uploads a decision that writes "Kompetenz-Kompetenz"
// and runs this with:
//   GATEWAY_URL     gateway of a stack with sign-in
//   ADMIN_PASSWORD  dora, an administrator; LAWYER_PASSWORD: bruno, a lawyer (no admin)
//   QUERY           the firm's own term, which no document writes; OTHER: the name the decision uses
//   SCREENSHOTS     where to save screenshots, if set; CHROMIUM: the browser (default /usr/bin/chromium)
// Prints one line per scenario and exits non-zero if any failed.
import assert from "node:assert/strict";
import path from "node:path";
import { axeViolations, launch, need, PHONE, runner, searchFromHome, sessionOf } from "./harness.mjs";

const env = process.env;
const GW = need("GATEWAY_URL");
const QUERY = need("QUERY");
const OTHER = need("OTHER");
const SHOTS = env.SCREENSHOTS || "";

const browser = await launch();
const { scenario, finish } = runner(browser, { timeout: 90_000 });
const dora = await sessionOf(browser, GW, "dora", need("ADMIN_PASSWORD"));
const bruno = await sessionOf(browser, GW, "bruno", need("LAWYER_PASSWORD"));

async function noOverflow(page, what) {
  const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(wide <= 0, `${what} is ${wide} px wider than the screen`);
}

await scenario(
  "an administrator adds a set, and the next search finds, explains and highlights the firm's term",
  async (context) => {
    const page = await context.newPage();
    const before = await searchFromHome(page, GW, QUERY);
    assert.ok(!(await before.innerText()).includes("sob outro nome"), "no concept line before the set exists");

    await page.getByRole("link", { name: "Tesauro", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Tesauro" }).waitFor();
    await page.getByText("Nenhum conjunto ainda").waitFor();
    const names = page.getByLabel("Nomes do mesmo conceito, um por linha");
    await names.fill(QUERY);
    await page.getByRole("button", { name: "Incluir" }).click();
    await page.getByText("Escreva pelo menos dois nomes diferentes").waitFor(); // one name is no set, said in Portuguese
    await names.fill(`${QUERY}\n${OTHER}`);
    await page.getByRole("button", { name: "Incluir" }).click();
    await page.getByText(`Incluído: ${QUERY} = ${OTHER}.`).waitFor();
    assert.equal(await names.inputValue(), "", "the form is emptied for the next set");
    await page.getByText("1 conjunto", { exact: true }).waitFor();
    await page.getByText("alterado por dora").waitFor();
    await page.getByText("Conceitos gerais que vêm com o Precedente").click();
    await page.getByText("CDC = Código de Defesa do Consumidor").waitFor();
    assert.deepEqual(await axeViolations(page), []);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, "thesaurus.png"), fullPage: false });

    const card = await searchFromHome(page, GW, QUERY);
    const explanation = await card.locator(".explanation").innerText();
    const line = `Trata de ${QUERY} sob outro nome: “${OTHER}”`.toLowerCase();
    assert.ok(explanation.toLowerCase().includes(line), explanation);
    const marked = await card.locator("mark").allInnerTexts();
    assert.ok(marked.some((text) => text.toLowerCase() === OTHER.toLowerCase()), `highlights: ${marked}`);
    assert.deepEqual(await axeViolations(page), []);
    if (SHOTS) {
      await card.scrollIntoViewIfNeeded();
      await card.screenshot({ path: path.join(SHOTS, "thesaurus-search.png") });
    }
  },
  { storageState: dora },
);

await scenario(
  "on a phone, the administrator edits the set and removes it; it fits the screen",
  async (context) => {
    const page = await context.newPage();
    await page.goto(`${GW}/tesauro`);
    await page.getByRole("button", { name: `Editar “${QUERY} = ${OTHER}”` }).click();
    const editor = page.getByLabel(/Nomes do conjunto \d+, um por linha/);
    await editor.fill(`${QUERY}\n${OTHER}\ncompetência-competência`);
    await page.getByRole("button", { name: "Salvar" }).click();
    await page.getByText(`Alterado: ${QUERY} = ${OTHER} = competência-competência.`).waitFor();
    await noOverflow(page, "the thesaurus");
    assert.deepEqual(await axeViolations(page), []);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, "thesaurus-mobile.png"), fullPage: true });
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: `Remover “${QUERY} = ${OTHER} = competência-competência”` }).click();
    await page.getByText("Nenhum conjunto ainda").waitFor();
  },
  { storageState: dora, viewport: PHONE },
);

await scenario(
  "a lawyer has no Tesauro in the menu, and the page and the API refuse him",
  async (context) => {
    const page = await context.newPage();
    await page.goto(`${GW}/`);
    const menu = await page.getByRole("navigation", { name: "Principal" }).getByRole("link").allInnerTexts();
    assert.ok(!menu.includes("Tesauro"), `menu: ${menu}`);
    await page.goto(`${GW}/tesauro`);
    await page.getByText("Só administradores alteram o tesauro do escritório.").waitFor();
    assert.equal(await page.getByRole("button", { name: "Incluir" }).count(), 0);
    const refused = await context.request.post(`${GW}/api/thesaurus`, {
      data: { names: ["Contrato Ipê", "cessão de crédito"] },
      headers: { origin: GW },
    });
    assert.equal(refused.status(), 403, "the API refuses him too");
  },
  { storageState: bruno },
);

await finish();
