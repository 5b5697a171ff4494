// Page load and search latency of `ferrex ui` in headless Chromium: loads
// the page 5 times, then runs each query (a list, or a few general ones),
// in namespace $NAMESPACE (default "default"), and prints the medians and
// how many results came back as JSON. Usage: node latency.cjs URL [QUERY...]
// (PUPPETEER: puppeteer-core's directory; CHROMIUM: the browser).
"use strict";

const puppeteer = require(process.env.PUPPETEER);
const { search } = require("./search.cjs");
const [url, ...given] = process.argv.slice(2);
const queries = given.length
  ? given
  : ["what did we decide about the trip", "when is the next meeting", "who likes painting",
     "the book she recommended", "plans for the weekend", "where did they go on holiday",
     "what happened at work", "favourite food", "a concert last month", "the new job"];

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run"],
  });
  try {
    const page = await browser.newPage();
    const loads = [];
    for (let run = 0; run < 5; run += 1) {
      const started = Date.now();
      await page.goto(url, { waitUntil: "load" });
      await page.waitForSelector("body[data-ready=true]");
      loads.push(Date.now() - started);
    }
    await page.$eval("#namespace", (input, name) => (input.value = name), process.env.NAMESPACE || "default");
    const searches = [];
    let found = 0;
    for (const query of queries) {
      searches.push(await search(page, query));
      found += await page.$$eval("#results .hit", (hits) => hits.length);
    }
    process.stdout.write(`${JSON.stringify({ load_ms_median: median(loads), search_ms_median: median(searches), searches: searches.length, results: found })}\n`);
  } finally {
    await browser.close();
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack || error}\n`);
  process.exit(1);
});
