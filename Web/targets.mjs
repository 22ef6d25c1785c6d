// Touch targets of the map's markers (pure, no DOM): each marker (label pill, dot, cluster) has an
// invisible hit area around what it draws (isobar.css `.ann::after`), at least HIT_SIZE px square,
// centred on the marker. Hit areas of close markers overlap; a tap there means the marker nearest
// to it (nearestMarker), not whichever happens to be drawn on top.

/// The hit area's least side in CSS px: 44 on coarse pointers (touch: Apple's and WCAG 2.5.5's
/// 44 px), 24 on fine ones (WCAG 2.5.8). isobar.css sets `--hit` to these values (a node test
/// reads them there).
export const HIT_SIZE = { coarse: 44, fine: 24 };

/// A marker's hit area: its drawn box {left, top, right, bottom} grown about its centre to at
/// least `size` px on each side (a box already larger keeps its own size).
export function hitBox(box, size) {
  const cx = (box.left + box.right) / 2;
  const cy = (box.top + box.bottom) / 2;
  const w = Math.max(box.right - box.left, size) / 2;
  const h = Math.max(box.bottom - box.top, size) / 2;
  return { left: cx - w, top: cy - h, right: cx + w, bottom: cy + h };
}

/// Distance in px from a point {x, y} to a drawn box (0 inside or on its edge).
export function boxDistance(point, box) {
  const dx = Math.max(box.left - point.x, 0, point.x - box.right);
  const dy = Math.max(box.top - point.y, 0, point.y - box.bottom);
  return Math.hypot(dx, dy);
}

/// Which marker a tap at `point` means: of the `boxes` ({id, left, top, right, bottom}, the
/// markers' drawn boxes in viewport px) whose hit area (hitBox with `size`) holds the point, the
/// one whose drawn box is nearest to it; a tap on a drawn pill or dot is that marker's (distance
/// 0) unless another is drawn there too, and then the earlier box wins ties (the caller lists
/// the marker drawn on top first). null when no hit area holds the point.
export function nearestMarker(point, boxes, size) {
  let best = null;
  let bestDistance = Infinity;
  for (const box of boxes) {
    const hit = hitBox(box, size);
    if (point.x < hit.left || point.x > hit.right || point.y < hit.top || point.y > hit.bottom) continue;
    const d = boxDistance(point, box);
    if (d < bestDistance) {
      best = box.id;
      bestDistance = d;
    }
  }
  return best;
}
