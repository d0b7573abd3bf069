// The gateway in a real browser (Debian's chromium driven by playwright-core), against a running stack.
// tests/e2e/test_gateway.py starts the stacks (the search API owns accounts and sessions; `precedente up` starts
// the gateway in front of it), ingests the documents and runs this with either or both of:
//   GATEWAY_URL   gateway of a stack with sign-in (people made through the admin API: ana in socios, a reviewer;
//                 bruno in contencioso; passwords in ANA_PASSWORD, BRUNO_PASSWORD), and
//                 PUBLIC_ID, RESTRICTED_ID (group socios), SCRIPT_ID (text with <script>, a title and a type hint
//                 that are HTML), REVIEW_ID (in the review queue), REVIEW_FILE, HTML_ID (an original uploaded as
//                 text/html), ADMIN_KEY (the stack's admin API key: a browser sending it must gain nothing)
//   DEMO_URL      gateway of a stack without authentication (PRECEDENTE_AUTH_MODE=none), with DEMO_GROUP (its
//                 anonymous caller's group), DEMO_VISIBLE_ID (a document for DEMO_GROUP), DEMO_HIDDEN_ID (socios)
//   FIRST_ADMIN_URL  gateway of a stack whose first administrator ("admin") still has the one-time password of
//                 `precedente up`, given in ADMIN_ONE_TIME_PASSWORD (read from <data-dir>/admin-password)
//   CHROMIUM      the browser (default /usr/bin/chromium); SCREENSHOTS: a folder to save search.png and review.png in
// Prints one line per scenario and exits non-zero if any failed.
import assert from "node:assert/strict";
import path from "node:path";
import { chromium } from "playwright-core";

const env = process.env;
const need = (name) => {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const GW = env.GATEWAY_URL ?? "";
const DEMO = env.DEMO_URL ?? "";
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
/** Runs one scenario in a fresh browser context; `storageState` starts it signed in. */
async function scenario(name, body, storageState = undefined) {
  const started = Date.now();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: "pt-BR", storageState });
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

async function signIn(context, user, password) {
  const page = await context.newPage();
  await page.goto(`${GW}/`);
  await page.waitForURL(/\/login\?next=/);
  await page.getByLabel("Usuário").fill(user);
  await page.getByLabel("Senha").fill(password);
  await page.getByRole("button", { name: "Entrar" }).click();
  await page.waitForURL(`${GW}/`);
  return page;
}

/**
 * Signs in once and keeps the cookie for the scenarios of that person: every sign-in from this machine
 * counts against the API's per-address budget (PRECEDENTE_LOGIN_ATTEMPTS_PER_MINUTE), as the firm's would.
 */
async function sessionOf(user, password) {
  const context = await browser.newContext();
  try {
    await signIn(context, user, password);
    return await context.storageState();
  } finally {
    await context.close();
  }
}

async function openPage(context, route = "/") {
  const page = await context.newPage();
  await page.goto(`${GW}${route}`);
  return page;
}

/** Content-Security-Policy violations the page reports (an inline script without the nonce, say). */
function watchCsp(page) {
  const violations = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
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
  await page.locator(".status", { hasText: /decis(?:ão|ões)\/documentos? encontrados?|Nenhuma decisão/ }).waitFor();
  return { body: await response.json(), afterApiMs: Date.now() - at };
}

const resultIds = (page) => page.locator("article.result").evaluateAll((els) => els.map((e) => e.dataset.documentId));
const optionValues = (page, id) => page.locator(`#${id} option`).evaluateAll((els) => els.map((e) => e.value));

async function signedInScenarios() {
  const PUBLIC_ID = need("PUBLIC_ID");
  const RESTRICTED_ID = need("RESTRICTED_ID");
  const SCRIPT_ID = need("SCRIPT_ID");

  await scenario("sign-in: wrong password refused, right one accepted, sign-out ends the session at the API", async (context) => {
    const anonymous = await context.request.post(`${GW}/api/search`, { data: { query: "x" } });
    assert.equal(anonymous.status(), 401, "the API refuses callers without a session");
    const page = await context.newPage();
    await page.goto(`${GW}/revisao`);
    await page.waitForURL(/\/login\?next=%2Frevisao/);
    await page.getByLabel("Usuário").fill("ana");
    await page.getByLabel("Senha").fill("senha-errada");
    await page.getByRole("button", { name: "Entrar" }).click();
    await page.waitForURL(/erro=credenciais/);
    await page.locator("#login-erro", { hasText: "Usuário ou senha incorretos" }).waitFor();
    assert.equal((await context.cookies()).length, 0, "no cookie after a refused sign-in");
    await page.getByLabel("Usuário").fill("ana");
    await page.getByLabel("Senha").fill(need("ANA_PASSWORD"));
    await page.getByRole("button", { name: "Entrar" }).click();
    await page.waitForURL(`${GW}/revisao`);
    const [cookie] = await context.cookies();
    assert.equal(cookie.name, "precedente_session");
    assert.match(cookie.value, /^prs_/, "the cookie holds the API's session token");
    assert.ok(cookie.httpOnly && cookie.sameSite === "Lax", `session cookie flags: ${JSON.stringify(cookie)}`);
    assert.ok(cookie.expires > Date.now() / 1000 + 11 * 3600, "the cookie lives as long as the API's session (12 h)");
    assert.equal(await page.evaluate(() => document.cookie), "", "page scripts cannot read the session");
    assert.equal(await page.locator(".demo-banner").count(), 0, "no demo banner when sign-in is on");
    await page.locator(".user", { hasText: "ana" }).waitFor();
    assert.equal((await context.request.post(`${GW}/api/search`, { data: { query: "x" } })).status(), 200);

    await page.getByRole("button", { name: "Sair" }).click();
    await page.waitForURL(/\/login/);
    assert.equal((await context.cookies()).length, 0, "the cookie is cleared");
    const after = await context.request.post(`${GW}/api/search`, { data: { query: "x" } });
    assert.equal(after.status(), 401, "signed out: the API proxy refuses again");
    // The token itself is dead at the API, not only forgotten by this browser.
    await context.addCookies([{ ...cookie }]);
    const replayed = await context.request.post(`${GW}/api/search`, { data: { query: "x" } });
    assert.equal(replayed.status(), 401, "a copy of the signed-out cookie opens nothing");
    // A page opened with a dead session (the document link, a page of the site) goes to sign-in.
    await page.goto(`${GW}/api/documents/${PUBLIC_ID}`);
    await page.waitForURL(new RegExp(`/login\\?next=%2Fapi%2Fdocuments%2F${PUBLIC_ID}$`));
    await context.addCookies([{ ...cookie }]);
    await page.goto(`${GW}/ingestao`);
    await page.waitForURL(/\/login\?next=%2Fingestao/);
  });

  const ana = await sessionOf("ana", need("ANA_PASSWORD"));
  const bruno = await sessionOf("bruno", need("BRUNO_PASSWORD"));

  await scenario("search: query, filter, highlighted passage, explanation, document at its page", async (context) => {
    const page = await openPage(context);
    const violations = watchCsp(page);
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
    // The API's document_url (the PDF with the passage marked, at its page) under the gateway's /api.
    const expectedHref = `/api${filteredBody.results[0].document_url}`;
    assert.match(expectedHref, new RegExp(`^/api/documents/${PUBLIC_ID}\\?passage=\\d+#page=${expectedPage}$`));
    assert.equal(await link.getAttribute("href"), expectedHref);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, "search.png"), fullPage: false });

    const [viewer] = await Promise.all([context.waitForEvent("page"), link.click()]);
    await viewer.waitForLoadState("load");
    assert.equal(viewer.url(), `${GW}${expectedHref}`);
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
    // The page works under its nonce CSP: Next's own scripts carry the nonce, nothing was blocked.
    assert.deepEqual(violations, [], "no Content-Security-Policy violation");
  }, ana);

  await scenario("escaping: <script> in a passage, HTML in the title and type hints show as text, nothing runs", async (context) => {
    const page = await openPage(context);
    let dialogs = 0;
    page.on("dialog", async (dialog) => {
      dialogs += 1;
      await dialog.dismiss();
    });
    await search(page, "xilógrafo quimérico");
    const card = page.locator(`article.result[data-document-id="${SCRIPT_ID}"]`);
    await card.waitFor();
    assert.ok(((await card.locator(".passage").textContent()) ?? "").includes("<script>alert(1)</script>"));
    assert.ok(((await card.locator("h2").textContent()) ?? "").includes("<img src=x onerror=alert(1)>"));
    assert.ok((await card.locator(".tag").allTextContents()).includes("<svg onload=alert(4)>"), "the type hint, as text");
    assert.ok((await page.locator("#filtro-tipo option").allTextContents()).some((t) => t.startsWith("<svg onload=alert(4)>")));
    assert.equal(await page.locator("article.result script, article.result img, article.result svg, select svg").count(), 0);
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
  }, ana);

  await scenario("access list: a user outside the group never sees the restricted document", async (context) => {
    const page = await openPage(context);
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

    // Credentials and identity headers from the browser are dropped: the session cookie alone decides.
    const forged = { "X-Precedente-User": "ana", "X-Precedente-Groups": "socios", Authorization: `Bearer ${need("ADMIN_KEY")}` };
    const forgedGet = await context.request.get(`${GW}/api/documents/${RESTRICTED_ID}`, { headers: forged });
    assert.equal(forgedGet.status(), 404, "forged headers must not open the document");
    const forgedSearch = await context.request.post(`${GW}/api/search`, {
      headers: forged,
      data: { query: RESTRICTED_QUERY, top_k: 20 },
    });
    assert.equal(forgedSearch.status(), 200);
    assert.ok(!(await forgedSearch.json()).results.some((r) => r.document_id === RESTRICTED_ID));
    const adminRoute = await context.request.get(`${GW}/api/users`, { headers: forged });
    assert.equal(adminRoute.status(), 403, "the admin key sent by a browser is not used: bruno is no admin");

    // A made-up cookie is no session at all.
    await context.addCookies([{ name: "precedente_session", value: "prs_forjadoforjadoforjadoforjadoforjadoforja", url: GW }]);
    const tampered = await context.request.get(`${GW}/api/documents/${PUBLIC_ID}`);
    assert.equal(tampered.status(), 401);
  }, bruno);

  await scenario("no session: a browser's own Authorization header is never passed on", async (context) => {
    const headers = { Authorization: `Bearer ${need("ADMIN_KEY")}`, "X-Precedente-Groups": "socios" };
    assert.equal((await context.request.get(`${GW}/api/users`, { headers })).status(), 401);
    assert.equal((await context.request.get(`${GW}/api/documents/${RESTRICTED_ID}`, { headers })).status(), 401);
  });

  await scenario("access list: a member of the group does see it (control)", async (context) => {
    const response = await context.request.post(`${GW}/api/search`, { data: { query: RESTRICTED_QUERY, top_k: 10 } });
    assert.ok((await response.json()).results.some((r) => r.document_id === RESTRICTED_ID), "ana finds it");
    const file = await context.request.get(`${GW}/api/documents/${RESTRICTED_ID}`);
    assert.equal(file.status(), 200);
    assert.equal(file.headers()["content-type"], "application/pdf");
  }, ana);

  await scenario("keyboard only: Tab to the field, type, Enter, Tab to a result link, open it", async (context) => {
    const page = await openPage(context);
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
    assert.match(href, /^\/api\/documents\/[0-9a-f-]+(?:\?passage=\d+)?(?:#page=\d+)?$/);
    const [viewer] = await Promise.all([context.waitForEvent("page"), page.keyboard.press("Enter")]);
    await viewer.waitForLoadState("load");
    assert.ok(viewer.url().endsWith(href), `${viewer.url()} opened by Enter`);
  }, ana);

  await scenario("review queue: list, page image, extracted text, correct and reject", async (context) => {
    if (!REVIEW_ID) throw new Error("REVIEW_ID is not set");
    const page = await openPage(context, "/revisao");
    const violations = watchCsp(page);
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
    assert.deepEqual(violations, [], "no Content-Security-Policy violation");
  }, ana);

  await scenario("password: the wrong current one refused, the change kept, the old one dead", async (context) => {
    const old = need("CARLA_PASSWORD");
    const chosen = `${old}-trocada`;
    const page = await signIn(context, "carla", old);
    await page.getByRole("link", { name: "Senha", exact: true }).click();
    await page.waitForURL(`${GW}/senha`);
    const change = async (current, next, again = next) => {
      await page.getByLabel("Senha atual").fill(current);
      await page.getByLabel("Nova senha (").fill(next);
      await page.getByLabel("Confirme a nova senha").fill(again);
      await page.getByRole("button", { name: "Alterar senha" }).click();
    };
    await change("nao-e-a-senha-atual", chosen);
    await page.waitForURL(/erro=atual/);
    await page.getByRole("alert").filter({ hasText: "A senha atual está incorreta" }).waitFor();
    await change(old, chosen, `${chosen}x`);
    await page.waitForURL(/erro=diferentes/);
    await change(old, chosen);
    await page.waitForURL(/\/senha\?ok=/);
    await page.getByRole("status").filter({ hasText: "Senha alterada" }).waitFor();
    await page.getByRole("button", { name: "Sair" }).click();
    await page.waitForURL(/\/login/);
    const refused = await context.request.post(`${GW}/auth/login`, {
      form: { username: "carla", password: old, next: "/" },
      headers: { origin: GW },
      maxRedirects: 0,
    });
    assert.match(refused.headers().location ?? "", /erro=credenciais/, "the old password no longer signs in");
    await signIn(context, "carla", chosen);
  });

  await scenario("ingestion status: counts per stage and the latest stopped documents", async (context) => {
    const page = await openPage(context, "/ingestao");
    const stages = page.locator("section.counts").first();
    await stages.getByText("Indexado").waitFor();
    const table = page.locator("table.stopped");
    await table.waitFor();
    if (REVIEW_ID) assert.ok(((await table.textContent()) ?? "").includes(need("REVIEW_FILE")));
  }, ana);
}

async function demoScenarios() {
  const VISIBLE = need("DEMO_VISIBLE_ID");
  const HIDDEN = need("DEMO_HIDDEN_ID");
  const GROUP = need("DEMO_GROUP");

  await scenario("demo mode: banner on every page, never a sign-in, only what the demo groups may see", async (context) => {
    const page = await context.newPage();
    const violations = watchCsp(page);
    for (const route of ["/", "/revisao", "/ingestao", "/login?next=%2Frevisao"]) {
      await page.goto(`${DEMO}${route}`);
      await page.getByText(/modo demonstração, sem autenticação/i).waitFor();
      assert.ok(!new URL(page.url()).pathname.startsWith("/login"), `${route} must not ask to sign in`);
      assert.equal(await page.getByRole("button", { name: "Entrar" }).count(), 0);
    }
    assert.ok(((await page.locator(".demo-banner").textContent()) ?? "").includes(GROUP), "the banner names the groups");
    await page.goto(`${DEMO}/`);
    const { body } = await search(page, QUERY);
    assert.ok(body.results.some((r) => r.document_id === VISIBLE), "the demo group's document is found");
    const hidden = await search(page, RESTRICTED_QUERY);
    assert.ok(!hidden.body.results.some((r) => r.document_id === HIDDEN));
    assert.equal((await context.request.get(`${DEMO}/api/documents/${HIDDEN}`)).status(), 404);
    assert.equal((await context.request.get(`${DEMO}/api/documents/${VISIBLE}`)).status(), 200);
    const forged = await context.request.get(`${DEMO}/api/documents/${HIDDEN}`, {
      headers: { "X-Precedente-Groups": "socios", "X-Precedente-User": "admin" },
    });
    assert.equal(forged.status(), 404);
    assert.deepEqual(violations, [], "no Content-Security-Policy violation");
  });
}

async function firstAdminScenarios() {
  const FIRST = need("FIRST_ADMIN_URL");
  const oneTime = need("ADMIN_ONE_TIME_PASSWORD");
  const chosen = `${oneTime}-escolhida`;

  await scenario("first administrator: the one-time password leads to the change form, nothing else opens before", async (context) => {
    const page = await context.newPage();
    await page.goto(`${FIRST}/ingestao`);
    await page.waitForURL(/\/login\?next=%2Fingestao/);
    await page.getByLabel("Usuário").fill("admin");
    await page.getByLabel("Senha").fill(oneTime);
    await page.getByRole("button", { name: "Entrar" }).click();
    await page.waitForURL(`${FIRST}/senha?obrigatoria=1&next=%2Fingestao`);
    await page.locator("#senha-obrigatoria", { hasText: "escolha uma senha nova" }).waitFor();
    // Any other page sends them back to the form, and the API holds the session back.
    await page.goto(`${FIRST}/revisao`);
    await page.waitForURL(/\/senha\?obrigatoria=1&next=%2Frevisao/);
    const held = await context.request.post(`${FIRST}/api/search`, { data: { query: "x" } });
    assert.equal(held.status(), 403, "the API refuses the session until the password is changed");
    await page.goto(`${FIRST}/senha?obrigatoria=1&next=%2Fingestao`);
    await page.getByLabel("Senha atual").fill(oneTime);
    await page.getByLabel("Nova senha (").fill(chosen);
    await page.getByLabel("Confirme a nova senha").fill(chosen);
    await page.getByRole("button", { name: "Alterar senha" }).click();
    await page.waitForURL(/\/senha\?ok=ok&next=%2Fingestao/);
    await page.getByRole("status").filter({ hasText: "Senha alterada" }).waitFor();
    assert.equal(await page.locator("#senha-obrigatoria").count(), 0, "no longer asked to change it");
    await page.getByRole("link", { name: "Continuar" }).click();
    await page.waitForURL(`${FIRST}/ingestao`);
    await page.getByRole("heading", { name: "Ingestão", level: 1 }).waitFor();
    const failed = await page.getByText("Não foi possível consultar").count();
    assert.equal(failed, 0, `the status answered: ${await page.locator(".ingestion").textContent()}`);
    const freed = await context.request.post(`${FIRST}/api/search`, { data: { query: "x" } });
    assert.equal(freed.status(), 200, "the same session works once the password is changed");
  });
}

if (GW) await signedInScenarios();
if (env.FIRST_ADMIN_URL) await firstAdminScenarios();
if (DEMO) await demoScenarios();
await browser.close();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
