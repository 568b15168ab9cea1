"""Slow, literal readings of docs/rules.md §3 and of §6.3-6.4 (fillers and the rules the
special tiles lift), to check the engine against."""

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


def reference_level_plusplus(
    placements_with_levels, placement: Placement, relax=(), max_level=None
):
    """The level of ``placement`` under docs/rules.md §3 and §6.3-6.4 read literally, or a short
    code of why it is illegal: "overhang or gap", "uneven", "open or partly covered gap",
    "one support", "too high", "not adjacent".

    Gap fillers need no second support; ``relax`` lifts "one", "bridge" (every 4-connected
    region of squares whose top is below the supporting level that holds a square of the
    tile lies inside the tile) and "loose" (no neighbour needed on level 1 and up).
    """
    relax = frozenset(relax)
    top: dict[tuple[int, int], tuple[int, int]] = {}
    on_level: dict[int, set[tuple[int, int]]] = {}
    for index, (p, level) in enumerate(placements_with_levels):
        for cell in p.cells():
            top[cell] = (index, level)
        on_level.setdefault(level, set()).update(p.cells())
    cells = placement.cells()
    beneath = {cell: top.get(cell) for cell in cells}
    if all(b is None for b in beneath.values()):
        level = 0
    else:
        height = {cell: -1 if b is None else b[1] for cell, b in beneath.items()}
        below = max(height.values())
        gaps = [cell for cell, h in height.items() if h < below]
        if gaps and "bridge" not in relax:
            return "overhang or gap" if any(h < 0 for h in height.values()) else "uneven"
        if gaps:
            xs = [x for x, _ in top] + [x for x, _ in cells]
            ys = [y for _, y in top] + [y for _, y in cells]
            box = (min(xs) - 2, min(ys) - 2, max(xs) + 2, max(ys) + 2)

            def low(cell):
                found = top.get(cell)
                return found is None or found[1] < below

            region = set(gaps)
            todo = list(gaps)
            while todo:
                x, y = todo.pop()
                for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                    inside = box[0] <= n[0] <= box[2] and box[1] <= n[1] <= box[3]
                    if n not in region and inside and low(n):
                        region.add(n)
                        todo.append(n)
            if not region <= cells:
                return "open or partly covered gap"
        supports = {b[0] for b in beneath.values() if b is not None and b[1] == below}
        if len(supports) < 2 and "one" not in relax and placement.kind != "filler":
            return "one support"
        level = below + 1
    if max_level is not None and level > max_level:
        return "too high"
    if on_level.get(level) and not (level >= 1 and "loose" in relax):
        touching = {
            (x + dx, y + dy) for x, y in cells for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
        }
        if not touching & on_level[level]:
            return "not adjacent"
    return level
