// Folders per matter (/pastas, issue 34) in a real browser (Debian's chromium driven by playwright-core) against a
// running stack. tests/e2e/test_gateway_folders.py uploads the documents and runs this with:
//   GATEWAY_URL    gateway of a stack with sign-in
//   ANA_PASSWORD   ana (contencioso, socios); BRUNO_PASSWORD: bruno (contencioso only)
//   QUERY          a query whose first result ana keeps; WALLED_FOLDER: a folder of ana's, shared with contencioso,
//                  that holds a document only "socios" may see (WALLED_TITLE)
//   EXPORT_DIR     where the exported DOCX and text are saved; SCREENSHOTS: where to save screenshots, if set
//   CHROMIUM       the browser (default /usr/bin/chromium)
// Prints one line per scenario and exits non-zero if any failed.
import assert from "node:assert/strict";
import path from "node:path";
import { axeViolations, launch, need, PHONE, runner, searchFromHome, sessionOf } from "./harness.mjs";

const env = process.env;
const GW = need("GATEWAY_URL");
const EXPORTS = need("EXPORT_DIR");
const SHOTS = env.SCREENSHOTS || "";

const browser = await launch();
const { scenario, finish } = runner(browser, { timeout: 60_000 });
const ana = await sessionOf(browser, GW, "ana", need("ANA_PASSWORD"));
const bruno = await sessionOf(browser, GW, "bruno", need("BRUNO_PASSWORD"));
let folderUrl = "";

await scenario(
  "a lawyer keeps a result in a new folder with a note, shares it and exports it",
  async (context) => {
    const page = await context.newPage();
    const card = await searchFromHome(page, GW, need("QUERY"));
    const heading = await card.locator("h2").innerText();
    await card.getByRole("button", { name: "Adicionar à pasta" }).click();
    await card.getByLabel("Pasta", { exact: true }).waitFor();
    await card.getByLabel("Pasta", { exact: true }).selectOption({ label: "Nova pasta…" });
    await card.getByLabel("Nome da nova pasta").fill("Cliente Acme: negativação");
    await card.getByLabel(/^Nota \(opcional\)/).fill("Tese central para o item III da inicial.");
    await card.getByRole("button", { name: "Adicionar", exact: true }).click();
    await card.getByText("Adicionado à pasta “Cliente Acme: negativação”.").waitFor();
    await card.getByRole("link", { name: "Ver a pasta" }).click();
    await page.getByRole("heading", { level: 1, name: "Cliente Acme: negativação" }).waitFor();
    folderUrl = page.url();
    const item = page.locator("article.folder-item").first();
    assert.equal(await item.locator("h2").innerText(), heading, "the folder's item is headed by the card's citation");
    assert.match(await item.locator("blockquote").innerText(), /^“.+” \(p\. \d+(-\d+)?\)$/s);
    await item.getByText("Nota: Tese central para o item III da inicial.").waitFor();

    await page.getByText("Renomear, compartilhar ou excluir").click();
    await page.getByLabel("Compartilhar com os grupos (separados por vírgula)").fill("contencioso");
    await page.getByRole("button", { name: "Salvar compartilhamento" }).click();
    await page.getByText("Sua pasta, compartilhada com contencioso").waitFor();
    assert.deepEqual(await axeViolations(page), []);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, "folder.png"), fullPage: true });

    for (const [name, file] of [["Exportar para Word (DOCX)", "pasta.docx"], ["Exportar texto para a petição", "pasta.txt"]]) {
      const download = page.waitForEvent("download");
      await page.getByRole("link", { name }).click();
      await (await download).saveAs(path.join(EXPORTS, file));
    }

    await page.goto(`${GW}/pastas`);
    await page.getByRole("link", { name: "Cliente Acme: negativação" }).waitFor();
    assert.deepEqual(await axeViolations(page), []);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, "folders.png"), fullPage: false });
  },
  { storageState: ana },
);

await scenario(
  "a colleague of the group reads the shared folders on a phone, without what is walled off from him",
  async (context) => {
    const page = await context.newPage();
    await page.goto(`${GW}/pastas`);
    await page.getByRole("link", { name: "Cliente Acme: negativação" }).waitFor();
    const walled = page.getByRole("link", { name: need("WALLED_FOLDER") });
    await walled.waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the list is ${overflow} px wider than the screen`);
    await walled.click();
    await page.getByRole("heading", { level: 1, name: need("WALLED_FOLDER") }).waitFor();
    await page.locator("article.folder-item").first().waitFor();
    const text = await page.locator("main").innerText();
    assert.ok(!text.includes(need("WALLED_TITLE")), "the folder showed bruno a document walled off from him");
    assert.match(text, /Pasta de ana, compartilhada com contencioso · 1 item/);
    assert.equal(await page.getByText("Renomear, compartilhar ou excluir").count(), 0, "the owner's controls");
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(wide <= 0, `the folder is ${wide} px wider than the screen`);
    assert.deepEqual(await axeViolations(page), []);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, "folder-mobile.png"), fullPage: true });
    await page.goto(folderUrl);
    await page.getByRole("heading", { level: 1, name: "Cliente Acme: negativação" }).waitFor();
  },
  { storageState: bruno, viewport: PHONE },
);

await finish();
