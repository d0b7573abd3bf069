// A leading case's card in a real browser (Debian's chromium driven by playwright-core) against a running stack
// (issue 33, items 1 and 2). tests/e2e/test_gateway_precedents.py ingests the STF's RE 657.718/MG (Tema 500) and two
// decisions of the archive that cite it, and runs this with:
//   GATEWAY_URL  gateway of a stack with sign-in; PASSWORD: ana's, a lawyer
//   QUERY        a question the leading case answers; BADGE: its badge; CITED_BY: the summary of its "citado por"
//   CITING       the citations of the works that cite it, separated by "|"
//   SCREENSHOTS  where to save screenshots, if set; CHROMIUM: the browser (default /usr/bin/chromium)
// Prints one line per scenario and exits non-zero if any failed.
import assert from "node:assert/strict";
import path from "node:path";
import { axeViolations, launch, need, PHONE, runner, sessionOf } from "./harness.mjs";

const env = process.env;
const GW = need("GATEWAY_URL");
const QUERY = need("QUERY");
const BADGE = need("BADGE");
const CITED_BY = need("CITED_BY");
const CITING = need("CITING").split("|");
const SHOTS = env.SCREENSHOTS || "";

const browser = await launch();
const { scenario, finish } = runner(browser, { timeout: 90_000 });
const ana = await sessionOf(browser, GW, "ana", need("PASSWORD"));

/** The card whose badge says BADGE, its "Citado por" opened; checks what it lists. */
async function leadingCard(page) {
  await page.goto(`${GW}/?q=${encodeURIComponent(QUERY)}`);
  await page.locator("article.result").first().waitFor();
  const badge = page.locator(".precedent-badge", { hasText: BADGE });
  const card = page.locator("article.result", { has: badge });
  assert.equal(await card.count(), 1, "one card carries the badge");
  assert.equal((await badge.innerText()).trim(), BADGE);
  assert.equal(await badge.getAttribute("title"), "Precedente qualificado (CPC, art. 927)");
  const fold = card.locator("details.cited-by:not(.cites)");
  const summary = fold.locator("summary");
  assert.equal((await summary.innerText()).trim(), CITED_BY);
  assert.ok(!(await fold.locator("ul").isVisible()), "the list is folded until asked for");
  await summary.click();
  const links = fold.locator("a.open-linked");
  await links.first().waitFor();
  const listed = (await links.allInnerTexts()).map((text) => text.replace("(abre em nova aba)", "").trim());
  assert.equal(listed.length, CITING.length, `listed: ${listed}`);
  for (const citing of CITING) {
    assert.ok(listed.some((text) => text.startsWith(citing)), `${citing} not in ${listed}`);
  }
  for (const link of await links.all()) {
    assert.equal(await link.getAttribute("target"), "_blank");
    assert.match((await link.getAttribute("href")) ?? "", /^\/api\/documents\/[0-9a-f-]{36}/);
  }
  assert.deepEqual(await axeViolations(page), []);
  await card.scrollIntoViewIfNeeded();
  return card;
}

await scenario(
  "the leading case carries its badge, and its 'Citado por' lists the decisions of the base that cite it",
  async (context) => {
    const page = await context.newPage();
    const card = await leadingCard(page);
    if (SHOTS) await card.screenshot({ path: path.join(SHOTS, "precedent-card.png") });
  },
  { storageState: ana },
);

await scenario(
  "on a phone, the same card and list fit the screen",
  async (context) => {
    const page = await context.newPage();
    const card = await leadingCard(page);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(wide <= 0, `the page is ${wide} px wider than the screen`);
    const box = await card.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= PHONE.width, `the card overflows: ${JSON.stringify(box)}`);
    if (SHOTS) await card.screenshot({ path: path.join(SHOTS, "precedent-card-mobile.png") });
  },
  { storageState: ana, viewport: PHONE },
);

await finish();
