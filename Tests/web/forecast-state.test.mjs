// The detail's forecast state (PROTOCOL.md "Forecast on demand"): a report whose forecast is being
// asked for says so ("loading the forecast…"), a failed one gives the reason, and a report without
// any forecast state keeps "no forecast in this feed"; in English and Slovak.
import { test } from "node:test";
import assert from "node:assert/strict";
import { forecastNoteHTML } from "../../Web/forecast.mjs";
import { translator } from "../../Web/i18n.mjs";

test("the detail says pending, failed (with the reason) or no forecast, exactly", () => {
  const en = translator({ locale: "en" }), sk = translator({ locale: "sk" });
  assert.equal(forecastNoteHTML({ state: "pending" }, en),
    '<div class="no-forecast forecast-pending" role="status" data-state="pending">loading the forecast…</div>');
  assert.equal(forecastNoteHTML({ state: "failed", reason: "HTTP 500 <Internal> Server Error", fetchedAt: 1, expiresAt: 2 }, en),
    '<div class="no-forecast forecast-failed" role="status" data-state="failed">no forecast: HTTP 500 &lt;Internal&gt; Server Error</div>');
  assert.equal(forecastNoteHTML(undefined, en), '<div class="no-forecast" data-state="none">no forecast in this feed</div>');
  assert.equal(forecastNoteHTML({ state: "pending" }, sk),
    '<div class="no-forecast forecast-pending" role="status" data-state="pending">načítava sa predpoveď…</div>');
  assert.equal(forecastNoteHTML({ state: "failed", reason: "timed out after 10 s" }, sk),
    '<div class="no-forecast forecast-failed" role="status" data-state="failed">bez predpovede: timed out after 10 s</div>');
});
