// The gateway in a real browser (Debian's chromium driven by playwright-core), against a running stack.
// tests/e2e/test_gateway.py starts the stack and two gateways, ingests the documents and runs this with:
//   GATEWAY_URL   gateway with sign-in (users ana: socios, bruno: contencioso; passwords in ANA_PASSWORD, BRUNO_PASSWORD)
//   DEMO_URL      gateway in demo mode (no groups)
//   PUBLIC_ID, RESTRICTED_ID (group socios), SCRIPT_ID (text with <script>), REVIEW_ID (in the review queue), REVIEW_FILE,
//   HTML_ID (an original uploaded as text/html)
//   CHROMIUM      the browser (default /usr/bin/chromium); SCREENSHOTS: a folder to save search.png and review.png in
// Prints one line per scenario and exits non-zero if any failed.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";

const env = process.env;
const need = (name) => {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const GW = need("GATEWAY_URL");
const DEMO = need("DEMO_URL");
const PUBLIC_ID = need("PUBLIC_ID");
const RESTRICTED_ID = need("RESTRICTED_ID");
const SCRIPT_ID = need("SCRIPT_ID");
const REVIEW_ID = env.REVIEW_ID ?? "";
const HTML_ID = env.HTML_ID ?? "";
const SHOTS = env.SCREENSHOTS ?? "";
const QUERY = "nulidade da cláusula compromissória e do procedimento arbitral";
const RESTRICTED_QUERY = "legitimidade passiva da câmara arbitral no procedimento arbitral";
const TIMEOUT = 20_000;

const browser = await chromium.launch({
  executablePath: env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--lang=pt-BR"],
  env: { ...process.env, LANG: "pt_BR.UTF-8", LANGUAGE: "pt_BR:pt" },
});

let passed = 0;
let failed = 0;
async function scenario(name, body) {
  const started = Date.now();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: "pt-BR" });
  context.setDefaultTimeout(TIMEOUT);
  try {
    await body(context);
    passed += 1;
    console.log(`ok   ${name} (${Date.now() - started} ms)`);
  } catch (err) {
    failed += 1;
    console.log(`FAIL ${name} (${Date.now() - started} ms)\n${err?.stack ?? err}`);
  } finally {
    await context.close();
  }
}

async function signIn(context, user, password, base = GW) {
  const page = await context.newPage();
  await page.goto(`${base}/`);
  await page.waitForURL(/\/login\?next=/);
  await page.getByLabel("Usuário").fill(user);
  await page.getByLabel("Senha").fill(password);
  await page.getByRole("button", { name: "Entrar" }).click();
  await page.waitForURL(`${base}/`);
  return page;
}

/** Types a query and waits for the results; returns how long the page took after the API answered. */
async function search(page, query) {
  const field = page.locator("#consulta");
  await field.fill(query);
  const answered = page.waitForResponse((r) => r.url().endsWith("/api/search") && r.request().method() === "POST");
  await field.press("Enter");
  const response = await answered;
  const at = Date.now();
  assert.equal(response.status(), 200, `search answered ${response.status()}`);
  await page.locator(".status", { hasText: /trechos? encontrados?|Nenhum trecho/ }).waitFor();
  return { body: await response.json(), afterApiMs: Date.now() - at };
}

const resultIds = (page) => page.locator("article.result").evaluateAll((els) => els.map((e) => e.dataset.documentId));
const optionValues = (page, id) => page.locator(`#${id} option`).evaluateAll((els) => els.map((e) => e.value));

await scenario("sign-in: wrong password refused, right one accepted, sign-out ends the session", async (context) => {
  const anonymous = await context.request.post(`${GW}/api/search`, { data: { query: "x" } });
  assert.equal(anonymous.status(), 401, "the API proxy must refuse callers without a session");
  const page = await context.newPage();
  await page.goto(`${GW}/revisao`);
  await page.waitForURL(/\/login\?next=%2Frevisao/);
  await page.getByLabel("Usuário").fill("ana");
  await page.getByLabel("Senha").fill("senha-errada");
  await page.getByRole("button", { name: "Entrar" }).click();
  await page.waitForURL(/erro=credenciais/);
  await page.getByRole("alert").filter({ hasText: "Usuário ou senha incorretos" }).waitFor();
  assert.equal((await context.cookies()).length, 0, "no cookie after a refused sign-in");
  await page.getByLabel("Usuário").fill("ana");
  await page.getByLabel("Senha").fill(need("ANA_PASSWORD"));
  await page.getByRole("button", { name: "Entrar" }).click();
  await page.waitForURL(`${GW}/revisao`);
  const [cookie] = await context.cookies();
  assert.ok(cookie.httpOnly && cookie.sameSite === "Lax", `session cookie flags: ${JSON.stringify(cookie)}`);
  assert.equal(await page.locator(".demo-banner").count(), 0, "no demo banner when sign-in is on");
  await page.getByRole("button", { name: "Sair" }).click();
  await page.waitForURL(/\/login/);
  const after = await context.request.post(`${GW}/api/search`, { data: { query: "x" } });
  assert.equal(after.status(), 401, "signed out: the API proxy refuses again");
});

await scenario("search: query, filter, highlighted passage, explanation, document at its page", async (context) => {
  const page = await signIn(context, "ana", need("ANA_PASSWORD"));
  const { body, afterApiMs } = await search(page, QUERY);
  console.log(`     results visible ${afterApiMs} ms after the API answered`);
  assert.ok(afterApiMs < 1000, `results took ${afterApiMs} ms after the API answered`);
  assert.ok(body.results.length > 0 && body.results.length <= 5, `top 5, got ${body.results.length}`);
  assert.ok((await resultIds(page)).includes(PUBLIC_ID), "the public decision is found");
  assert.match(page.url(), /[?&]q=nulidade/);

  const courts = await page.locator("#filtro-tribunal option").allTextContents();
  assert.ok(courts.some((t) => /^TJSP \(\d+\)$/.test(t)), `court facet with counts: ${courts}`);
  const filtered = page.waitForResponse((r) => r.url().endsWith("/api/search"));
  await page.locator("#filtro-tribunal").selectOption("tjsp");
  const filteredBody = await (await filtered).json();
  await page.waitForURL(/tribunal=tjsp/);
  await page.locator(".status", { hasText: /encontrados?/ }).waitFor();
  assert.ok(filteredBody.results.length > 0 && filteredBody.results.every((r) => r.court === "tjsp"));
  const ids = await resultIds(page);
  assert.deepEqual(ids, filteredBody.results.map((r) => r.document_id));

  const first = page.locator("article.result").first();
  assert.ok((await first.locator(".passage mark").count()) > 0, "the matched words are in <mark>");
  const explanation = (await first.locator(".explanation").textContent()) ?? "";
  assert.ok(explanation.replace("Por que é relevante:", "").trim().length > 5, `explanation: ${explanation}`);
  assert.ok((await first.locator(".tag").allTextContents()).includes("TJSP"));
  const expectedPage = filteredBody.results[0].page_number;
  const link = first.locator("a.open-document");
  assert.equal(await link.getAttribute("href"), `/api/documents/${PUBLIC_ID}#page=${expectedPage}`);
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, "search.png"), fullPage: false });

  const [viewer] = await Promise.all([context.waitForEvent("page"), link.click()]);
  await viewer.waitForLoadState("load");
  assert.equal(viewer.url(), `${GW}/api/documents/${PUBLIC_ID}#page=${expectedPage}`);
  const pdf = await context.request.get(`${GW}/api/documents/${PUBLIC_ID}`);
  assert.equal(pdf.status(), 200);
  assert.equal(pdf.headers()["content-type"], "application/pdf");
  assert.equal((await pdf.body()).subarray(0, 5).toString(), "%PDF-");

  // The URL holds query and filters: a reload (or a shared link) shows the same search.
  await page.reload();
  await page.locator("article.result").first().waitFor();
  assert.equal(await page.locator("#consulta").inputValue(), QUERY);
  assert.equal(await page.locator("#filtro-tribunal").inputValue(), "tjsp");
  assert.deepEqual(await resultIds(page), ids);
});

await scenario("escaping: a document containing <script> shows it as text, and nothing runs", async (context) => {
  const page = await signIn(context, "ana", need("ANA_PASSWORD"));
  let dialogs = 0;
  page.on("dialog", async (dialog) => {
    dialogs += 1;
    await dialog.dismiss();
  });
  await search(page, "xilógrafo quimérico");
  const card = page.locator(`article.result[data-document-id="${SCRIPT_ID}"]`);
  await card.waitFor();
  assert.ok(((await card.locator(".passage").textContent()) ?? "").includes("<script>alert(1)</script>"));
  assert.ok(((await card.locator("h2").textContent()) ?? "").includes("<img src=x onerror=alert(2)>"));
  assert.equal(await page.locator("article.result script, article.result img").count(), 0);
  assert.ok((await card.locator(".passage mark").count()) > 0);
  await page.waitForTimeout(300);
  assert.equal(dialogs, 0, "no dialog may fire");
  if (HTML_ID) {
    // An original uploaded as HTML is a download through the document link, never a page of this origin.
    const original = await context.request.get(`${GW}/api/documents/${HTML_ID}`);
    assert.equal(original.status(), 200);
    assert.equal(original.headers()["content-type"], "application/octet-stream");
    assert.match(original.headers()["content-disposition"] ?? "", /^attachment/);
  }
});

await scenario("access list: a user outside the group never sees the restricted document", async (context) => {
  const page = await signIn(context, "bruno", need("BRUNO_PASSWORD"));
  const { body } = await search(page, RESTRICTED_QUERY);
  assert.ok(!body.results.some((r) => r.document_id === RESTRICTED_ID), "not in bruno's results");
  assert.ok(!(await resultIds(page)).includes(RESTRICTED_ID));
  assert.ok(!("stj" in (body.facets.court ?? {})), `no STJ in the court facet: ${JSON.stringify(body.facets)}`);
  assert.ok(!("acordao" in (body.facets.document_type ?? {})), "no acórdão counted");
  assert.ok(!(await optionValues(page, "filtro-tribunal")).includes("stj"));

  const direct = await context.request.get(`${GW}/api/documents/${RESTRICTED_ID}`);
  assert.equal(direct.status(), 404, "the document link of a hidden document is 404");
  const opened = await page.goto(`${GW}/api/documents/${RESTRICTED_ID}#page=1`);
  assert.equal(opened?.status(), 404);
  const status = await context.request.get(`${GW}/api/documents/${RESTRICTED_ID}/status`);
  assert.equal(status.status(), 404);

  // Identity headers from the browser are ignored: the session decides.
  const forged = { "X-Precedente-User": "ana", "X-Precedente-Groups": "socios" };
  const forgedGet = await context.request.get(`${GW}/api/documents/${RESTRICTED_ID}`, { headers: forged });
  assert.equal(forgedGet.status(), 404, "forged identity headers must not open the document");
  const forgedSearch = await context.request.post(`${GW}/api/search`, {
    headers: forged,
    data: { query: RESTRICTED_QUERY, top_k: 20 },
  });
  assert.equal(forgedSearch.status(), 200);
  assert.ok(!(await forgedSearch.json()).results.some((r) => r.document_id === RESTRICTED_ID));

  // A tampered cookie is no session at all.
  await context.addCookies([{ name: "precedente_session", value: "eyJ1IjoiYW5hIiwiZXhwIjo5OTk5OTk5OTk5fQ.forged", url: GW }]);
  const tampered = await context.request.get(`${GW}/api/documents/${PUBLIC_ID}`);
  assert.equal(tampered.status(), 401);
});

await scenario("access list: a member of the group does see it (control)", async (context) => {
  await signIn(context, "ana", need("ANA_PASSWORD"));
  const response = await context.request.post(`${GW}/api/search`, { data: { query: RESTRICTED_QUERY, top_k: 10 } });
  assert.ok((await response.json()).results.some((r) => r.document_id === RESTRICTED_ID), "ana finds it");
  const file = await context.request.get(`${GW}/api/documents/${RESTRICTED_ID}`);
  assert.equal(file.status(), 200);
  assert.equal(file.headers()["content-type"], "application/pdf");
});

await scenario("demo mode: banner on every page, only documents open to everyone", async (context) => {
  const page = await context.newPage();
  for (const route of ["/", "/revisao", "/ingestao"]) {
    await page.goto(`${DEMO}${route}`);
    await page.getByText(/modo demonstração, sem autenticação/i).waitFor();
  }
  await page.goto(`${DEMO}/`);
  const { body } = await search(page, RESTRICTED_QUERY);
  assert.ok(!body.results.some((r) => r.document_id === RESTRICTED_ID));
  assert.equal((await context.request.get(`${DEMO}/api/documents/${RESTRICTED_ID}`)).status(), 404);
  assert.equal((await context.request.get(`${DEMO}/api/documents/${PUBLIC_ID}`)).status(), 200);
  const forged = await context.request.get(`${DEMO}/api/documents/${RESTRICTED_ID}`, {
    headers: { "X-Precedente-Groups": "socios" },
  });
  assert.equal(forged.status(), 404);
});

await scenario("keyboard only: Tab to the field, type, Enter, Tab to a result link, open it", async (context) => {
  const page = await signIn(context, "ana", need("ANA_PASSWORD"));
  await page.goto(`${GW}/`);
  const active = () => page.evaluate(() => document.activeElement?.id || document.activeElement?.className || "");
  await page.locator("body").focus();
  for (let i = 0; i < 15 && (await active()) !== "consulta"; i += 1) await page.keyboard.press("Tab");
  assert.equal(await active(), "consulta", "Tab reaches the search field");
  await page.keyboard.type("nulidade da cláusula compromissória");
  await page.keyboard.press("Enter");
  await page.locator("article.result").first().waitFor();
  for (let i = 0; i < 40 && (await active()) !== "open-document"; i += 1) await page.keyboard.press("Tab");
  assert.equal(await active(), "open-document", "Tab reaches a result's document link");
  const href = await page.evaluate(() => document.activeElement.getAttribute("href"));
  assert.match(href, /^\/api\/documents\/[0-9a-f-]+#page=\d+$/);
  const [viewer] = await Promise.all([context.waitForEvent("page"), page.keyboard.press("Enter")]);
  await viewer.waitForLoadState("load");
  assert.ok(viewer.url().endsWith(href), `${viewer.url()} opened by Enter`);
});

await scenario("review queue: list, page image, extracted text, correct and reject", async (context) => {
  if (!REVIEW_ID) throw new Error("REVIEW_ID is not set");
  const page = await signIn(context, "ana", need("ANA_PASSWORD"));
  await page.goto(`${GW}/revisao`);
  const link = page.getByRole("link", { name: need("REVIEW_FILE") });
  await link.click();
  await page.waitForURL(new RegExp(`/revisao\\?id=${REVIEW_ID}`));
  const image = page.getByRole("img", { name: "Imagem da página 1" });
  await image.waitFor();
  await page.waitForFunction(() => {
    const img = document.querySelector('img[alt="Imagem da página 1"]');
    return img && img.complete && img.naturalWidth > 0;
  });
  const text = page.getByLabel("Texto extraído da página 1");
  assert.ok((await text.inputValue()).length > 0, "the extracted text is shown");
  for (const name of ["Aprovar", "Refazer OCR", "Rejeitar"]) await page.getByRole("button", { name }).waitFor();
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, "review.png"), fullPage: false });

  await text.fill("Agravo de instrumento. Texto corrigido pela revisora.");
  await page.getByRole("button", { name: "Salvar correção" }).first().click();
  await page.getByRole("status").filter({ hasText: "Página 1 corrigida" }).waitFor();
  await page.getByLabel("Motivo da rejeição").fill("digitalização ilegível, pedir nova cópia");
  await page.getByRole("button", { name: "Rejeitar" }).click();
  await page.getByRole("status").filter({ hasText: "Rejeitado" }).waitFor();
  await page.getByRole("link", { name: need("REVIEW_FILE") }).waitFor({ state: "detached" }); // out of the queue
});

await scenario("ingestion status: counts per stage and the latest stopped documents", async (context) => {
  const page = await signIn(context, "ana", need("ANA_PASSWORD"));
  await page.goto(`${GW}/ingestao`);
  const stages = page.locator("section.counts").first();
  await stages.getByText("Indexado").waitFor();
  const table = page.locator("table.stopped");
  await table.waitFor();
  if (REVIEW_ID) assert.ok(((await table.textContent()) ?? "").includes(need("REVIEW_FILE")));
});

await browser.close();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
