"""Grid geometry: cell names, rays for straight moves, windows for n-in-a-row."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Board", "cell_name", "parse_cell", "DIRECTIONS"]

ORTHOGONAL = ((0, -1), (0, 1), (-1, 0), (1, 0))
DIAGONAL = ((-1, -1), (-1, 1), (1, -1), (1, 1))
# a hex board drawn as a rhombus of rows and columns (each row shifted half a cell right of
# the one above): the six cells around (r, c)
HEX = ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0))
DIRECTIONS = {"orthogonal": ORTHOGONAL, "diagonal": DIAGONAL, "all": ORTHOGONAL + DIAGONAL, "hex": HEX}


def cell_name(index: int, rows: int, cols: int) -> str:
    """Cell names as on a chess board: column letter, row number counted from the bottom."""
    row, col = divmod(index, cols)
    return f"{chr(ord('a') + col)}{rows - row}"


def parse_cell(name: str, rows: int, cols: int) -> int:
    col = ord(name[0]) - ord("a")
    row = rows - int(name[1:])
    if not (0 <= col < cols and 0 <= row < rows):
        raise ValueError(f"'{name}' is not a cell of a {rows}x{cols} board")
    return row * cols + col


@dataclass
class Board:
    rows: int
    cols: int
    names: tuple[str, ...] = ()
    rays: dict[str, tuple[tuple[tuple[int, ...], ...], ...]] = field(default_factory=dict)
    _windows: dict[int, tuple[tuple[int, ...], ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.longest = max(self.rows, self.cols)  # the longest straight run of cells
        self.names = tuple(cell_name(i, self.rows, self.cols) for i in range(self.rows * self.cols))
        self.rays = {name: self._rays(dirs) for name, dirs in DIRECTIONS.items()}
        # the cells next to each cell, per set of directions
        self.neighbours = {name: tuple(tuple(ray[0] for ray in rays) for rays in self.rays[name])
                           for name in DIRECTIONS}

    @property
    def size(self) -> int:
        return self.rows * self.cols

    def _rays(self, dirs: tuple[tuple[int, int], ...]) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """Per cell, a ray (the cells outwards, in order) per direction it has a neighbour in.
        Directions are distinct unit steps, so no two rays of a cell share a cell (a choice of
        slides adds each option once: ``codegen_choices._distinct_ids``)."""
        out = []
        for index in range(self.size):
            row, col = divmod(index, self.cols)
            cell_rays = []
            for dr, dc in dirs:
                ray = []
                r, c = row + dr, col + dc
                while 0 <= r < self.rows and 0 <= c < self.cols:
                    ray.append(r * self.cols + c)
                    r += dr
                    c += dc
                if ray:
                    cell_rays.append(tuple(ray))
            out.append(tuple(cell_rays))
        return tuple(out)

    def rays_within(self, dirs: str, steps: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """``rays[dirs]`` cut to their first ``steps`` cells, empty rays left out (a slide of
        at most ``steps``: the cells it may reach, found once per link, not counted per move)."""
        rays = self.rays[dirs]
        if steps >= self.longest:
            return rays
        if steps < 1:
            return tuple(() for _ in rays)
        return tuple(tuple(ray[:steps] for ray in cell_rays) for cell_rays in rays)

    def windows(self, n: int) -> tuple[tuple[int, ...], ...]:
        """Every straight run of n cells (rows, columns, both diagonals)."""
        if n < 0 or n > self.longest:
            return ()  # no run that long fits (and the cache stays small whatever n the rules ask for)
        if n not in self._windows:
            found = []
            for index in range(self.size):
                row, col = divmod(index, self.cols)
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    cells = []
                    for k in range(n):
                        r, c = row + dr * k, col + dc * k
                        if not (0 <= r < self.rows and 0 <= c < self.cols):
                            break
                        cells.append(r * self.cols + c)
                    if len(cells) == n:
                        found.append(tuple(cells))
            self._windows[n] = tuple(found)
        return self._windows[n]
