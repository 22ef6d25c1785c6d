// Touch targets of the map's markers (Web/targets.mjs): the hit area's size on touch screens and
// with a mouse, and which marker a tap means where hit areas overlap.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { HIT_SIZE, hitBox, nearestMarker } from "../../Web/targets.mjs";

/// A drawn box of w x h px centred on (x, y).
const drawn = (id, x, y, w, h) => ({ id, left: x - w / 2, top: y - h / 2, right: x + w / 2, bottom: y + h / 2 });

test("hit areas: at least 44 px square on touch screens and 24 with a mouse, centred on what is drawn", () => {
  assert.deepEqual(HIT_SIZE, { coarse: 44, fine: 24 });
  // A 12 px dot, a 58x24 label pill, a 52 px cluster.
  assert.deepEqual(hitBox(drawn("d", 100, 100, 12, 12), 44), { left: 78, top: 78, right: 122, bottom: 122 });
  assert.deepEqual(hitBox(drawn("d", 100, 100, 12, 12), 24), { left: 88, top: 88, right: 112, bottom: 112 });
  assert.deepEqual(hitBox(drawn("p", 100, 100, 58, 24), 44), { left: 71, top: 78, right: 129, bottom: 122 });
  assert.deepEqual(hitBox(drawn("c", 100, 100, 52, 52), 44), { left: 74, top: 74, right: 126, bottom: 126 });
  // The stylesheet gives the hit area these sizes: --hit 24 px, 44 px on a coarse pointer, and
  // the invisible ::after of each map marker at least --hit on each side.
  const css = readFileSync(new URL("../../Web/isobar.css", import.meta.url), "utf8");
  assert.equal(css.match(/:root \{ --hit: (\d+)px; \}/)?.[1], String(HIT_SIZE.fine));
  assert.equal(css.match(/@media \(pointer: coarse\) \{ :root \{ --hit: (\d+)px; \} \}/)?.[1], String(HIT_SIZE.coarse));
  const rule = css.match(/\.ann-icon > \.ann::after \{([^}]*)\}/)?.[1] ?? "";
  assert.match(rule, /width: max\(100%, var\(--hit\)\); height: max\(100%, var\(--hit\)\);/);
  assert.match(rule, /content: ""; position: absolute;/);
  assert.doesNotMatch(rule, /background|border|box-shadow/); // invisible: markers look the same
});

test("a tap 20 px from an isolated marker's centre is that marker's on touch screens, 10 px with a mouse", () => {
  for (const marker of [drawn("dot", 200, 200, 12, 12), drawn("pill", 200, 200, 58, 24), drawn("cluster", 200, 200, 44, 44)]) {
    for (const [dx, dy] of [[20, 0], [-20, 0], [0, 20], [0, -20], [20, 20]]) {
      assert.equal(nearestMarker({ x: 200 + dx, y: 200 + dy }, [marker], 44), marker.id, `${marker.id} at ${dx},${dy}`);
    }
    for (const [dx, dy] of [[10, 0], [0, -10], [-10, 10]]) {
      assert.equal(nearestMarker({ x: 200 + dx, y: 200 + dy }, [marker], 24), marker.id, `${marker.id} at ${dx},${dy} (mouse)`);
    }
  }
  // Outside the hit area: no marker (the tap is the map's).
  assert.equal(nearestMarker({ x: 223, y: 200 }, [drawn("dot", 200, 200, 12, 12)], 44), null);
  assert.equal(nearestMarker({ x: 200, y: 213 }, [drawn("dot", 200, 200, 12, 12)], 24), null);
  assert.equal(nearestMarker({ x: 200, y: 200 }, [], 44), null);
});

test("overlapping hit areas: a tap means the marker drawn nearest to it, not the one on top", () => {
  // Two dots 16 px apart: each half of the overlap is its own dot's, whichever is listed first.
  const a = drawn("a", 100, 100, 12, 12);
  const b = drawn("b", 116, 100, 12, 12);
  for (const boxes of [[a, b], [b, a]]) {
    assert.equal(nearestMarker({ x: 106, y: 100 }, boxes, 44), "a");
    assert.equal(nearestMarker({ x: 111, y: 100 }, boxes, 44), "b");
    assert.equal(nearestMarker({ x: 90, y: 118 }, boxes, 44), "a");
    assert.equal(nearestMarker({ x: 130, y: 84 }, boxes, 44), "b");
  }
  // Exactly between them: the first listed (the caller lists the one drawn on top first).
  assert.equal(nearestMarker({ x: 108, y: 100 }, [a, b], 44), "a");
  assert.equal(nearestMarker({ x: 108, y: 100 }, [b, a], 44), "b");
  // A long label pill beside a dot: a tap on the pill's far end is the pill's although the dot's
  // centre is nearer than the pill's; a tap just off the dot is the dot's although the pill's
  // hit area (listed first, drawn on top) holds it too.
  const pill = drawn("pill", 150, 100, 80, 24); // 110..190 x 88..112
  const dot = drawn("dot", 100, 120, 12, 12); // 94..106 x 114..126
  assert.equal(nearestMarker({ x: 112, y: 100 }, [pill, dot], 44), "pill");
  assert.equal(nearestMarker({ x: 111, y: 118 }, [pill, dot], 44), "dot"); // 5 px from the dot, 6 from the pill
  assert.equal(nearestMarker({ x: 104, y: 112 }, [pill, dot], 44), "dot");
  // A dot drawn under the pill: a tap on the pill there is the pill's (both at distance 0, the
  // pill first).
  assert.equal(nearestMarker({ x: 150, y: 100 }, [pill, drawn("under", 150, 100, 12, 12)], 44), "pill");
});
