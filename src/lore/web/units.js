// Lengths as the rules measure them: in the unit the area's map is written in (its
// scale's: km, m, or a unit of the rules such as Sq), the same for the map's links, the
// routes and the dialogs.

// `metres` in the map's unit ("4km", "3Sq", "12.5m"); metres when there is no map.
export function lengthText(metres, map) {
  const unit = (map && map.unit) || "m";
  const per = (map && map.unitMetres) || 1;
  return `${Math.round((metres / per) * 10) / 10}${unit}`;
}
