// The labels of the map's tokens: how many, how many overlap another label, a token, an
// area's marker or a text of the map (a place's name, a link's length, a square's mark), and
// how many (areas' markers too) are cut at the map's edge.
() => {
  const svg = document.querySelector('#map svg');
  const view = svg.viewBox.baseVal;
  const boxes = [...svg.querySelectorAll('text.token-label')].map((t) => t.getBBox());
  const overlapping = [];
  boxes.forEach((a, i) => boxes.slice(i + 1).forEach((b) => {
    if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height)
      overlapping.push([a.x, a.y, b.x, b.y]);
  }));
  const marks = [...svg.querySelectorAll('g.token circle, g.token rect, text.child-area, g.place text, text.link-label')];
  for (const mark of marks) {
    const b = mark.getBBox();
    for (const a of boxes) {
      if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height)
        overlapping.push([a.x, a.y, b.x, b.y]);
    }
  }
  const outside = [...boxes, ...[...svg.querySelectorAll('text.child-area')].map((t) => t.getBBox())].filter((b) => b.x < view.x - 0.5 || b.y < view.y - 0.5
    || b.x + b.width > view.x + view.width + 0.5 || b.y + b.height > view.y + view.height + 0.5);
  return [boxes.length, overlapping.length, outside.length];
}
