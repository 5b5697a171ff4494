// One search through the page, as a person makes it: the query typed into
// the box, the button pressed, and the page's mark that the search finished
// (body[data-searched] changes). Returns the milliseconds it took.
"use strict";

async function search(page, query) {
  await page.$eval("#query", (input) => (input.value = ""));
  await page.type("#query", query);
  const before = await page.$eval("body", (body) => body.dataset.searched || "");
  const began = Date.now();
  await page.click("#search-form button[type=submit]");
  await page.waitForFunction((mark) => (document.body.dataset.searched || "") !== mark, {}, before);
  return Date.now() - began;
}

module.exports = { search };
