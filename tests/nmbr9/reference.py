"""A slow, literal reading of RULES.md section 3, to check the engine against."""

from games.nmbr9 import Placement


def reference_level(placements_with_levels, placement: Placement):
    """The level of ``placement`` on a display, or the short code of why it is illegal."""
    top: dict[tuple[int, int], tuple[int, int]] = {}  # square -> (tile index, level)
    on_level: dict[int, set[tuple[int, int]]] = {}
    for index, (p, level) in enumerate(placements_with_levels):
        for cell in p.cells():
            top[cell] = (index, level)
        on_level.setdefault(level, set()).update(p.cells())
    cells = placement.cells()
    beneath = [top.get(cell) for cell in cells]
    if all(b is None for b in beneath):
        level = 0
    elif any(b is None for b in beneath):
        return "overhang or gap"
    else:
        levels = {lv for _, lv in beneath}
        if len(levels) > 1:
            return "uneven"
        if len({index for index, _ in beneath}) < 2:
            return "one support"
        level = levels.pop() + 1
    if on_level.get(level):
        touching = {
            (x + dx, y + dy) for x, y in cells for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
        }
        if not touching & on_level[level]:
            return "not adjacent"
    return level
