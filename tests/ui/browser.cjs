// Drives `ferrex ui` in a real headless Chromium through puppeteer-core:
// load, search, open a memory and its belief history, an entity and its
// graph, what a session was told, the devices, then forget (once
// cancelled, once confirmed), with a screenshot at each step. Prints the figures of the run as JSON on stdout.
// Usage: node browser.cjs URL SCREENSHOT_DIR (PUPPETEER: puppeteer-core's
// directory; CHROMIUM: the browser).
"use strict";

const puppeteer = require(process.env.PUPPETEER);
const { search: searchOn } = require("./search.cjs");
const [url, shots] = process.argv.slice(2);

function check(condition, what) {
  if (!condition) throw new Error(`check failed: ${what}`);
}

async function main() {
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check"],
  });
  const figures = {};
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    const problems = [];
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("console", (message) => message.type() === "error" && problems.push(message.text()));
    const shot = (name) => page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
    try {
      await steps(page, shot, figures);
    } catch (error) {
      await shot("failed").catch(() => {});
      const state = await page.evaluate(() => `status: ${document.querySelector("#status")?.textContent}; detail: ${document.querySelector("#detail")?.textContent}`).catch(() => "");
      throw new Error(`${error.message} (${state}; page errors: ${problems})`);
    }
    check(problems.length === 0, `no errors in the page: ${problems}`);
  } finally {
    await browser.close();
  }
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

async function steps(page, shot, figures) {

    let started = Date.now();
    await page.goto(url, { waitUntil: "load" });
    await page.waitForSelector("body[data-ready=true]");
    figures.load_ms = Date.now() - started;
    await shot("1-loaded");

    const search = (query) => searchOn(page, query);

    // Every namespace by default, each offered by name; each hit names its own.
    const choices = await page.$$eval("#namespace option", (options) => options.map((option) => option.value));
    check(choices[0] === "" && choices.includes("default"), `namespace choices: ${choices}`);
    figures.search_ms = await search("when does the backup run");
    const first = await page.$eval("#results .hit", (hit) => hit.textContent);
    check(first.includes("backup"), `the first result is the backup note: ${first}`);
    check(first.includes("default ·"), `a hit names its namespace: ${first}`);
    await search("who reviews token changes");
    const project = await page.$eval("#results .hit", (hit) => hit.textContent);
    check(project.includes("Dana") && project.includes("github.com.acme.api ·"), `a project's memory: ${project}`);
    await page.select("#namespace", "default");
    await search("who reviews token changes");
    const inDefault = await page.$$eval("#results .hit", (hits) => hits.map((hit) => hit.textContent));
    check(!inDefault.some((hit) => hit.includes("Dana")), `default alone: ${inDefault}`);
    await page.select("#namespace", "");
    await shot("2-search");

    // A fact and its history: the old value superseded, the new one current.
    await search("api-server port");
    await page.$eval("#invalidated", (box) => (box.checked = true));
    await search("api-server port");
    const fact = await page.$$eval("#results .hit", (hits) => hits.find((hit) => hit.textContent.includes("9090"))?.dataset.id);
    check(fact, "the current port is found");
    await page.click(`.hit[data-id="${fact}"]`);
    await page.waitForSelector("#timeline li");
    const steps = await page.$$eval("#timeline li", (items) => items.map((item) => `${item.className}: ${item.textContent}`));
    check(steps.length === 2 && steps[0].includes("8080") && steps[1].startsWith("current"), `history: ${steps}`);
    await shot("3-memory-history");

    // Its entity, its facts and its neighbours.
    await page.click("#detail .chip.entity");
    await page.waitForSelector("#entity-name");
    const name = await page.$eval("#entity-name", (heading) => heading.textContent);
    check(name === "api-server", `entity ${name}`);
    const nodes = await page.$$eval("svg.graph g.node", (items) => items.map((item) => item.textContent));
    check(nodes.some((node) => node.includes("postgres")), `neighbours: ${nodes}`);
    // Its relations: the fact whose object is an entity.
    const relations = await page.$$eval("#relations li", (items) => items.map((item) => item.textContent));
    check(relations.some((relation) => relation.startsWith("depends on → postgres")), `relations: ${relations}`);
    await shot("4-entity");

    await page.click(".tab[data-view=told]");
    await page.waitForSelector(".told-session, #none-told");
    const told = await page.$eval("#told-view", (view) => view.textContent);
    check(told.includes("session ui-session") && told.includes("nightly backup"), `told: ${told}`);
    check(told.includes("similarity"), `why it was told: ${told}`);
    await shot("5-told");

    await page.click(".tab[data-view=devices]");
    await page.waitForSelector("#no-peers, #peers");
    await shot("5-devices");

    await page.click(".tab[data-view=search]");
    await page.$eval("#invalidated", (box) => (box.checked = false));
    await search("when does the backup run");
    const backup = await page.$eval("#results .hit", (hit) => hit.dataset.id);
    await page.click(`.hit[data-id="${backup}"]`);
    await page.waitForFunction(() => document.querySelector("#detail h2")?.textContent.includes("backup"));
    // Cancelled: nothing is forgotten.
    page.once("dialog", (dialog) => dialog.dismiss());
    await page.click("#forget");
    await page.waitForFunction(() => document.querySelector("#status").textContent === "nothing forgotten");
    check(await page.$(`.hit[data-id="${backup}"]`), "a cancelled forget keeps the memory");
    // Confirmed: gone from the page and from search.
    let asked = "";
    page.once("dialog", (dialog) => {
      asked = dialog.message();
      dialog.accept();
    });
    await page.click("#forget");
    await page.waitForSelector("#forgotten");
    check(asked.includes("every paired device"), `the question: ${asked}`);
    await shot("6-forgotten");
    await search("when does the backup run");
    const after = await page.$$eval("#results .hit", (hits) => hits.map((hit) => hit.dataset.id));
    check(!after.includes(backup), "the forgotten memory is not found again");
    await shot("7-after-forget");
}

main().catch((error) => {
  process.stderr.write(`${error.stack || error}\n`);
  process.exit(1);
});
