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
//   SEARCH_URL    a gateway whose search needs no sign-in (a demo stack) holding more than ten works found by
//                 BROAD_QUERY: only the search page's flows run against it (paging, facets, keyboard, mobile, axe)
//   CHROMIUM      the browser (default /usr/bin/chromium); SCREENSHOTS: a folder to save search.png,
//                 search-mobile.png and review.png in
// Prints one line per scenario and exits non-zero if any failed.
import assert from "node:assert/strict";
import path from "node:path";
import { axeViolations, launch, need, runner, sessionOf as signedIn, submitSearch } from "./harness.mjs";

const env = process.env;
const GW = env.GATEWAY_URL ?? "";
const DEMO = env.DEMO_URL ?? "";
const REVIEW_ID = env.REVIEW_ID ?? "";
const HTML_ID = env.HTML_ID ?? "";
const SHOTS = env.SCREENSHOTS ?? "";
const QUERY = "nulidade da cláusula compromissória e do procedimento arbitral";
const RESTRICTED_QUERY = "legitimidade passiva da câmara arbitral no procedimento arbitral";
// Finds more than ten works in the signed-in stack (the decisions and the notes on arbitration), so it pages.
const BROAD_QUERY = env.BROAD_QUERY ?? "arbitragem e cláusula compromissória";
const MOBILE = { width: 390, height: 844 };
const TIMEOUT = 20_000;

const browser = await launch();
const run = runner(browser, { timeout: TIMEOUT });
/** Runs one scenario in a fresh browser context; `storageState` starts it signed in. */
const scenario = (name, body, storageState = undefined, viewport = undefined) =>
  run.scenario(name, body, { storageState, viewport });

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

const sessionOf = (user, password) => signedIn(browser, GW, user, password);

async function openPage(context, route = "/", base = GW) {
  const page = await context.newPage();
  await page.goto(`${base}${route}`);
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
  const response = await submitSearch(page, query); // this query's answer: Back re-runs the previous query too
  const at = Date.now();
  assert.equal(response.status(), 200, `search answered ${response.status()}`);
  await page.locator(".status", { hasText: /decis(?:ão|ões)\/documentos? encontrados?|Nenhuma decisão/ }).waitFor();
  return { body: await response.json(), afterApiMs: Date.now() - at };
}

const resultIds = (page) => page.locator("article.result").evaluateAll((els) => els.map((e) => e.dataset.documentId));
const checkboxValues = (page, id) => page.locator(`#${id} input`).evaluateAll((els) => els.map((e) => e.value));

/** The bodies of the POST /api/search requests the page sends from now on. */
function watchSearches(page) {
  const sent = [];
  page.on("request", (request) => {
    if (request.url().endsWith("/api/search") && request.method() === "POST") sent.push(request.postDataJSON());
  });
  return sent;
}

/** Waits for the page's next search and its answer; returns the request body and the answer. */
async function nextSearch(page, action) {
  const answered = page.waitForResponse((r) => r.url().endsWith("/api/search") && r.request().method() === "POST");
  await action();
  const response = await answered;
  assert.equal(response.status(), 200, `search answered ${response.status()}`);
  await page.locator(".status", { hasText: /encontrad|Nenhuma/ }).waitFor();
  await page.locator(".results.stale").waitFor({ state: "detached" });
  return { sent: response.request().postDataJSON(), body: await response.json() };
}

/** The court facet's values as the page offers them: { code: [label text, checked] }. */
const courtOptions = (page) =>
  page.locator("#filtro-tribunal li").evaluateAll((items) =>
    Object.fromEntries(
      items.map((li) => {
        const box = li.querySelector("input");
        return [box.value, [li.querySelector("label").textContent.replace(/\s+/g, " ").trim(), box.checked]];
      }),
    ),
  );

/** Presses Tab from the query field until the focus is inside the first result; the count of presses. */
async function tabsToFirstResult(page) {
  await page.locator("#consulta").focus();
  for (let presses = 1; presses <= 30; presses += 1) {
    await page.keyboard.press("Tab");
    const inFirst = await page.evaluate(() => {
      const first = document.querySelector("article.result");
      return Boolean(first && first.contains(document.activeElement));
    });
    if (inFirst) return presses;
  }
  return Infinity;
}

/** The search page's flows, against `base` (signed in through storageState, or a demo stack). */
async function searchPageScenarios(base, storageState) {
  await scenario("search page: total, pages of ten by offset in the URL, order by date, back and forward", async (context) => {
    const page = await openPage(context, "/", base);
    const violations = watchCsp(page);
    const { body } = await search(page, BROAD_QUERY);
    assert.ok(body.total > 10, `more than a page of works: ${body.total}`);
    assert.equal(body.results.length, 10, "pages of ten");
    await page.locator(".status", { hasText: `${body.total} decisões/documentos encontrados; mostrando 1–10.` }).waitFor();
    assert.equal(await page.locator("article.result").count(), 10);
    assert.equal(await page.getByText("Mostrar mais resultados").count(), 0, "paging, not 'Mostrar mais'");
    const pager = page.getByRole("navigation", { name: "Páginas de resultados" });
    await pager.locator('[aria-current="page"]', { hasText: "1" }).waitFor();
    const firstPage = await resultIds(page);

    const second = await nextSearch(page, () => pager.getByRole("link", { name: "Próxima ›" }).click());
    assert.equal(second.sent.offset, 10, "the second page is offset 10");
    assert.equal(second.sent.top_k, 10);
    await page.waitForURL(/[?&]pagina=2(&|$)/);
    await page.locator(".status", { hasText: /mostrando 11–/ }).waitFor();
    const secondPage = await resultIds(page);
    assert.ok(secondPage.length > 0 && !secondPage.some((id) => firstPage.includes(id)), "no work twice");
    assert.equal(await page.locator("ol.result-list").getAttribute("start"), "11");
    assert.equal(
      await page.evaluate(() => document.activeElement?.id),
      "resultado-11",
      "the first result of the new page takes the focus",
    );

    // Back: the first page again, from the URL.
    const back = await nextSearch(page, () => page.goBack());
    assert.equal(back.sent.offset, 0);
    assert.deepEqual(await resultIds(page), firstPage);
    // A reload of the second page's link shows the second page.
    await page.goForward();
    await page.waitForURL(/pagina=2/);
    await page.reload();
    await page.locator(".status", { hasText: /mostrando 11–/ }).waitFor();

    // Order by date: newest first among the works graded forte or provável.
    const byDate = await nextSearch(page, () => page.locator("#ordem").selectOption("date"));
    assert.equal(byDate.sent.sort, "date");
    assert.equal(byDate.sent.offset, 0, "a new order starts at the first page");
    await page.waitForURL((url) => url.searchParams.get("ordem") === "data" && !url.searchParams.has("pagina"));
    const dates = byDate.body.results
      .filter((r) => r.relevance !== "fraca" && r.document_date)
      .map((r) => r.document_date);
    assert.deepEqual(dates, [...dates].sort().reverse(), `newest first: ${dates}`);
    assert.deepEqual(violations, [], "no Content-Security-Policy violation");
  }, storageState);

  await scenario("filters: a ticked court keeps the others reachable, dates apply on change, empty query clears", async (context) => {
    const page = await openPage(context, "/", base);
    const { body } = await search(page, BROAD_QUERY);
    const before = await courtOptions(page);
    const courts = Object.keys(body.facets.court ?? {});
    assert.ok(courts.length >= 2, `two courts to choose from: ${JSON.stringify(body.facets.court)}`);
    const [chosen, other] = courts;
    const chosenCount = body.facets.court[chosen];

    const narrowed = await nextSearch(page, () => page.locator(`#filtro-tribunal input[value="${chosen}"]`).check());
    assert.deepEqual(narrowed.sent.filters.court, [chosen]);
    await page.waitForURL((url) => url.searchParams.getAll("tribunal").join() === chosen);
    assert.ok(narrowed.body.results.every((r) => r.court === chosen), "every result of the chosen court");
    assert.equal(narrowed.body.facets.court[chosen], chosenCount, "the chosen court keeps its count");
    assert.equal(narrowed.body.facets.court[other], body.facets.court[other], "the other court is still counted");
    const after = await courtOptions(page);
    assert.deepEqual(Object.keys(after).sort(), Object.keys(before).sort(), "every court is still offered");
    assert.equal(after[chosen][1], true);
    assert.equal(after[other][0], before[other][0], "the other court's label and count are unchanged");

    // A second court: either of them.
    const both = await nextSearch(page, () => page.locator(`#filtro-tribunal input[value="${other}"]`).check());
    assert.deepEqual(both.sent.filters.court.sort(), [chosen, other].sort());
    assert.ok(both.body.total >= narrowed.body.total);
    await page.waitForURL((url) => url.searchParams.getAll("tribunal").length === 2);

    // A date applies on its own, without "Pesquisar".
    const dated = await nextSearch(page, () => page.locator("#filtro-de").fill("2016-01-01"));
    assert.equal(dated.sent.filters.date_from, "2016-01-01");
    await page.waitForURL(/[?&]de=2016-01-01/);
    assert.ok(dated.body.results.every((r) => !r.document_date || r.document_date >= "2016-01-01"));

    // "Limpar filtros" drops them all, the query stays.
    const cleared = await nextSearch(page, () => page.getByRole("button", { name: "Limpar filtros" }).click());
    assert.deepEqual(cleared.sent.filters, {});
    assert.equal(new URL(page.url()).search, `?q=${encodeURIComponent(BROAD_QUERY).replace(/%20/g, "+")}`);

    // An empty query leaves no old results on screen.
    await page.locator("#consulta").fill("");
    await page.locator("#consulta").press("Enter");
    await page.locator("article.result").first().waitFor({ state: "detached" });
    assert.equal(((await page.locator(".status").textContent()) ?? "").trim(), "");
    assert.equal(new URL(page.url()).pathname + new URL(page.url()).search, "/");
  }, storageState);

  await scenario("keyboard: at most 5 Tab stops from the query to the first result; arrows on the order select search nothing", async (context) => {
    const page = await openPage(context, "/", base);
    await search(page, BROAD_QUERY);
    const presses = await tabsToFirstResult(page);
    assert.ok(presses <= 5, `${presses} Tab stops from the query to the first result`);
    const sent = watchSearches(page);
    await page.locator("#ordem").focus();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("ArrowDown");
    await page.waitForTimeout(600);
    assert.equal(sent.length, 0, `arrow keys on the closed select ran ${sent.length} searches`);
    // Enter applies what the arrows chose (once), as leaving the field would.
    const value = await page.locator("#ordem").inputValue();
    if (value === "date") {
      const applied = await nextSearch(page, () => page.keyboard.press("Enter"));
      assert.equal(applied.sent.sort, "date");
    }
    // Arrow keys on a ticked facet do nothing either (checkboxes, not selects).
    const box = page.locator("#filtro-tipo input").first();
    await box.focus();
    sent.length = 0;
    await page.keyboard.press("ArrowDown");
    await page.waitForTimeout(300);
    assert.equal(sent.length, 0);

    // The first result's document: the PDF at the passage's page, the passage marked (a highlight annotation).
    const link = page.locator("article.result a.open-document").first();
    const href = await link.getAttribute("href");
    if (/\?passage=\d+/.test(href ?? "")) {
      const pdf = await context.request.get(`${base}${href.split("#")[0]}`);
      assert.equal(pdf.status(), 200);
      const bytes = (await pdf.body()).toString("latin1");
      assert.match(bytes, /\/Subtype\s*\/Highlight/, "the passage is marked in the PDF");
      assert.match(await link.textContent(), /trecho marcado/);
    }
  }, storageState);

  await scenario("accessibility: axe-core finds no serious or critical violation on the search page", async (context) => {
    const page = await openPage(context, "/", base);
    assert.deepEqual(await axeViolations(page), [], "the empty search page");
    await search(page, BROAD_QUERY);
    const folded = page.locator("article.result details.other-passages summary");
    if ((await folded.count()) > 0) await folded.first().click();
    assert.deepEqual(await axeViolations(page), [], "the page with results");
  }, storageState);

  await scenario("mobile 390x844: no horizontal scroll, filters folded behind a button, Tab stops, axe", async (context) => {
    const page = await openPage(context, "/", base);
    const { body } = await search(page, BROAD_QUERY);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
    const panel = page.locator("#painel-filtros");
    assert.equal(await panel.isVisible(), false, "the filters are folded");
    const toggle = page.getByRole("button", { name: /^Filtros/ });
    assert.equal(await toggle.getAttribute("aria-expanded"), "false");
    const box = await page.locator("article.result").first().boundingBox();
    assert.ok(box && box.y < MOBILE.height, "the first result starts on the first screen");
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, "search-mobile.png"), fullPage: false });
    assert.ok((await tabsToFirstResult(page)) <= 5, "at most 5 Tab stops on a phone too");

    await toggle.click();
    await panel.waitFor({ state: "visible" });
    assert.equal(await toggle.getAttribute("aria-expanded"), "true");
    assert.deepEqual(await axeViolations(page), [], "the open filters");
    const court = Object.keys(body.facets.court ?? {})[0];
    const narrowed = await nextSearch(page, () => page.locator(`#filtro-tribunal input[value="${court}"]`).check());
    assert.deepEqual(narrowed.sent.filters.court, [court]);
    await page.getByRole("button", { name: /^Ver \d+ decis/ }).click();
    await panel.waitFor({ state: "hidden" });
    assert.equal(await page.evaluate(() => document.activeElement?.className), "filters-toggle", "focus back on the button");
    await page.getByRole("button", { name: "Filtros (1)" }).waitFor();
    // Escape closes it too.
    await toggle.click();
    await panel.waitFor({ state: "visible" });
    await page.keyboard.press("Escape");
    await panel.waitFor({ state: "hidden" });
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(wide <= 0, `after filtering the page is ${wide} px wider than the screen`);
    assert.deepEqual(await axeViolations(page), [], "the results on a phone");
  }, storageState, MOBILE);

  await scenario("narrow 360 px: nothing wider than the screen", async (context) => {
    const page = await openPage(context, "/", base);
    await search(page, BROAD_QUERY);
    const folded = page.locator("article.result details summary");
    if ((await folded.count()) > 0) await folded.first().click();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than 360 px`);
  }, storageState, { width: 360, height: 740 });
}

/** Waits for the answer of the page's next `method` request to /api`path` (a path prefix) after `action`. */
async function nextApi(page, method, pathPrefix, action) {
  const answered = page.waitForResponse(
    (r) => new URL(r.url()).pathname.startsWith(`/api${pathPrefix}`) && r.request().method() === method,
  );
  await action();
  return answered;
}

/** The judgment buttons of the card of this document. */
function judgmentOf(page, documentId) {
  const card = page.locator(`article.result[data-document-id="${documentId}"]`).first();
  return {
    card,
    yes: card.getByRole("button", { name: "Relevante", exact: true }),
    no: card.getByRole("button", { name: "Não relevante", exact: true }),
  };
}

/** Judging results (issue #20) and "Mais como este" (issue #19), as ana (socios) and bruno (contencioso). */
async function judgmentScenarios(ana, bruno, restrictedId, publicId) {
  await scenario("judging: one click marks a result, a reload still shows it, it changes, takes a note, is ana's only", async (context) => {
    const page = await openPage(context, "/");
    const violations = watchCsp(page);
    const readBack = nextApi(page, "GET", "/judgments", () => search(page, QUERY));
    assert.equal((await readBack).status(), 200, "the page reads the person's judgments of the query");
    const first = await page.locator("article.result").first().getAttribute("data-document-id");
    let { card, yes, no } = judgmentOf(page, first);
    await card.getByRole("group", { name: "Este resultado serve para a sua pesquisa?" }).waitFor();
    assert.equal(await yes.getAttribute("aria-pressed"), "false");
    const made = await nextApi(page, "POST", "/judgments", () => yes.click());
    assert.equal(made.status(), 201, "a new judgment");
    const sent = made.request().postDataJSON();
    assert.equal(sent.query, QUERY);
    assert.equal(sent.document_id, first);
    assert.equal(sent.shown_rank, 1);
    assert.equal(sent.relevant, true);
    await card.locator('button.judge-yes[aria-pressed="true"]').waitFor();
    await card.getByRole("status").filter({ hasText: "Avaliação salva: relevante." }).waitFor();

    // A reload: the page asks for ana's judgments of this query once, and shows hers.
    const again = nextApi(page, "GET", "/judgments", () => page.reload());
    const listed = await (await again).json();
    assert.ok(listed.judgments.some((j) => j.document_id === first && j.relevant), "the judgment is stored");
    ({ card, yes, no } = judgmentOf(page, first));
    await card.locator('button.judge-yes[aria-pressed="true"]').waitFor();
    assert.equal(await no.getAttribute("aria-pressed"), "false");

    // Changed from the keyboard (the button focused, Enter): the same judgment, now "não relevante".
    await no.focus();
    const changed = await nextApi(page, "POST", "/judgments", () => page.keyboard.press("Enter"));
    assert.equal(changed.status(), 200, "the earlier judgment, changed");
    await card.locator('button.judge-no[aria-pressed="true"]').waitFor();
    assert.equal(await yes.getAttribute("aria-pressed"), "false");
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Não relevante", "the focus stays");

    // An optional note.
    await card.getByRole("button", { name: "Acrescentar nota" }).click();
    const field = card.getByLabel("Nota (opcional): por que serve ou não serve");
    assert.equal(await page.evaluate(() => document.activeElement?.tagName), "TEXTAREA", "the note field takes the focus");
    await field.fill("trata de outra cláusula");
    assert.deepEqual(await axeViolations(page), [], "the page with judgments and the note form");
    const noted = await nextApi(page, "POST", "/judgments", () => card.getByRole("button", { name: "Salvar nota" }).click());
    assert.equal(noted.status(), 200);
    assert.equal(noted.request().postDataJSON().note, "trata de outra cláusula");
    assert.equal(noted.request().postDataJSON().relevant, false);
    await card.getByText("Sua nota: trata de outra cláusula").waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Editar nota", "focus back on its button");
    await page.reload();
    ({ card } = judgmentOf(page, first));
    await card.locator('button.judge-no[aria-pressed="true"]').waitFor();
    await card.getByText("Sua nota: trata de outra cláusula").waitFor();
    assert.deepEqual(violations, [], "no Content-Security-Policy violation");
  }, ana);

  await scenario("judging: another person's judgments never show (bruno sees none of ana's)", async (context) => {
    const page = await openPage(context, "/");
    const readBack = nextApi(page, "GET", "/judgments", () => search(page, QUERY));
    const listed = await (await readBack).json();
    assert.ok(listed.judgments.every((j) => j.judge === "bruno"), "only his own");
    await page.locator("article.result .judgment").first().waitFor();
    assert.equal(await page.locator('.judgment button[aria-pressed="true"]').count(), 0);
  }, bruno);

  await scenario("'Mais como este': other decisions near a passage, in the URL, Back returns, walled passages refused", async (context) => {
    const page = await openPage(context, "/");
    const violations = watchCsp(page);
    const { body } = await search(page, QUERY);
    const source = body.results[0];
    const link = page.locator("article.result").first().getByRole("link", { name: "Mais como este" });
    assert.equal(await link.getAttribute("href"), `/?q=${encodeURIComponent(QUERY).replace(/%20/g, "+")}&similar=${source.passage_id}`);
    const response = await nextApi(page, "POST", "/search/similar", () => link.click());
    assert.equal(response.status(), 200);
    const similar = await response.json();
    assert.equal(response.request().postDataJSON().passage_id, source.passage_id);
    await page.waitForURL((url) => url.searchParams.get("similar") === String(source.passage_id) && url.searchParams.get("q") === QUERY);
    const line = page.locator(".similar-to");
    await line.filter({ hasText: /^Trechos parecidos com o trecho da página \d+ de “.+”, de outras decisões e documentos\.$/ }).waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.className), "similar-to", "the line takes the focus");
    await page.locator(".status", { hasText: /encontrad/ }).waitFor();
    const shown = await resultIds(page);
    assert.ok(shown.length > 0, "other decisions and documents are listed");
    assert.ok(!shown.includes(source.document_id), "not the decision the passage is from");
    assert.deepEqual(shown, similar.results.map((r) => r.document_id));
    assert.equal(await page.locator("article.result .judgment").count(), 0, "no query to judge against here");
    assert.ok((await tabsToFirstResult(page)) <= 5, "at most 5 Tab stops to the first result here too");
    assert.deepEqual(await axeViolations(page), [], "the 'Mais como este' list");

    // The link reloads to the same list; Back returns to the query's results.
    const reloaded = await nextApi(page, "POST", "/search/similar", () => page.reload());
    assert.deepEqual((await reloaded.json()).results.map((r) => r.document_id), shown);
    await line.waitFor();
    const back = await nextApi(page, "POST", "/search", () => page.goBack());
    assert.equal(new URL(back.url()).pathname, "/api/search");
    await page.waitForURL((url) => !url.searchParams.has("similar"));
    await page.locator(".similar-to").waitFor({ state: "detached" });
    await page.locator("article.result .judgment").first().waitFor();

    // A passage of the partners' document: bruno is refused it (404, as a missing one), and never finds it.
    const restricted = await search(page, RESTRICTED_QUERY);
    const walled = restricted.body.results.find((r) => r.document_id === restrictedId);
    assert.ok(walled, "ana finds the partners' document");
    const other = await browser.newContext({ storageState: bruno });
    try {
      const refused = await other.request.post(`${GW}/api/search/similar`, { data: { passage_id: walled.passage_id } });
      assert.equal(refused.status(), 404);
      assert.match(refused.headers()["content-type"], /application\/problem\+json/);
      const open = body.results.find((r) => r.document_id === publicId);
      assert.ok(open, "the open decision is among the query's results");
      const his = await other.request.post(`${GW}/api/search/similar`, { data: { passage_id: open.passage_id, top_k: 50 } });
      assert.equal(his.status(), 200);
      const hisIds = (await his.json()).results.map((r) => r.document_id);
      assert.ok(hisIds.length > 0 && !hisIds.includes(restrictedId), `walled documents never listed: ${hisIds}`);
      const hers = await context.request.post(`${GW}/api/search/similar`, { data: { passage_id: open.passage_id, top_k: 50 } });
      assert.ok((await hers.json()).results.some((r) => r.document_id === restrictedId), "ana, in socios, gets it");
    } finally {
      await other.close();
    }
    assert.deepEqual(violations, [], "no Content-Security-Policy violation");
  }, ana);
}

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
  await searchPageScenarios(GW, ana);
  await judgmentScenarios(ana, bruno, RESTRICTED_ID, PUBLIC_ID);

  await scenario("search: query, filter, highlighted passage, explanation, document at its page", async (context) => {
    const page = await openPage(context);
    const violations = watchCsp(page);
    const { body, afterApiMs } = await search(page, QUERY);
    console.log(`     results visible ${afterApiMs} ms after the API answered`);
    assert.ok(afterApiMs < 1000, `results took ${afterApiMs} ms after the API answered`);
    assert.ok(body.results.length > 0 && body.results.length <= 10, `a page of ten, got ${body.results.length}`);
    assert.ok((await resultIds(page)).includes(PUBLIC_ID), "the public decision is found");
    assert.match(page.url(), /[?&]q=nulidade/);

    const courts = (await page.locator("#filtro-tribunal label").allTextContents()).map((t) => t.replace(/\s+/g, " ").trim());
    assert.ok(courts.some((t) => /^TJSP \(\d+ resultados?\)$/.test(t)), `court facet with counts: ${courts}`);
    const filtered = page.waitForResponse((r) => r.url().endsWith("/api/search"));
    await page.locator('#filtro-tribunal input[value="tjsp"]').check();
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
    assert.ok(await page.locator('#filtro-tribunal input[value="tjsp"]').isChecked());
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
    assert.ok((await page.locator("#filtro-tipo label").allTextContents()).some((t) => t.startsWith("<svg onload=alert(4)>")));
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
    assert.ok(!(await checkboxValues(page, "filtro-tribunal")).includes("stj"));

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
    for (const name of ["Aprovar", "Ler as páginas de novo", "Rejeitar"]) await page.getByRole("button", { name }).waitFor();
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
if (env.SEARCH_URL) await searchPageScenarios(env.SEARCH_URL, undefined);
if (env.FIRST_ADMIN_URL) await firstAdminScenarios();
if (DEMO) await demoScenarios();
await run.finish();
