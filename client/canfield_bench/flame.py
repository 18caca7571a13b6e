"""``bench --profile``: the server process sampled by py-spy, as a flame graph.

py-spy (an optional dependency: ``pip install 'canfield-race[profile]'``)
runs beside the server as its own process and reads the server's stacks
from outside (``--nonblocking``: the server is never paused for a sample),
so the server needs no change and runs as it always does. It writes the
samples as collapsed stacks (one line per distinct stack, ``a;b;c N``);
this module draws them as an SVG flame graph and names the frames that
took the most time, inclusive and on their own.
"""

from __future__ import annotations

import html
import shutil
import subprocess
import sys
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["PySpy", "py_spy_binary", "read_collapsed", "top_frames", "flame_svg", "summary"]

#: samples per second py-spy takes (its default is 100)
RATE = 250


def py_spy_binary() -> str | None:
    """py-spy beside this interpreter (a virtualenv's), else on PATH."""
    beside = Path(sys.executable).with_name("py-spy")
    return str(beside) if beside.exists() else shutil.which("py-spy")


class PySpy:
    """``py-spy record`` of one process for ``seconds``, collapsed stacks to ``out``."""

    def __init__(self, pid: int, out: Path, seconds: float) -> None:
        self.pid, self.out, self.seconds = pid, out, seconds
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        binary = py_spy_binary()
        if binary is None:
            raise RuntimeError("bench --profile needs py-spy: pip install 'canfield-race[profile]'")
        self.out.parent.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [
                binary,
                "record",
                "--pid",
                str(self.pid),
                "--duration",
                str(max(1, round(self.seconds))),
                "--rate",
                str(RATE),
                "--nonblocking",
                "--format",
                "raw",
                "--output",
                str(self.out),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )

    def wait(self, timeout_s: float = 60.0) -> None:
        """Until py-spy has written its file (it stops itself after ``seconds``)."""
        if self.process is None:
            return
        try:
            _, err = self.process.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, err = self.process.communicate()
        if not self.out.exists():
            raise RuntimeError(f"py-spy wrote no profile: {err.decode(errors='replace')[-2000:]}")


def read_collapsed(path: Path) -> Counter[tuple[str, ...]]:
    """Collapsed stacks (``root;...;leaf count`` per line), root first."""
    stacks: Counter[tuple[str, ...]] = Counter()
    for line in path.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            stacks[tuple(stack.split(";"))] += int(count)
    return stacks


def _short(frame: str) -> str:
    """``fn (path/to/module.py:12)`` as ``fn (module.py)``: lines differ per sample."""
    name, _, where = frame.partition(" (")
    file = where.rsplit(":", 1)[0].rstrip(")")
    return f"{name} ({file.rsplit('/', 1)[-1]})" if file else name


def top_frames(
    stacks: Counter[tuple[str, ...]], count: int = 15
) -> tuple[int, list[tuple[str, int]], list[tuple[str, int]]]:
    """The total samples, the frames by inclusive samples (each counted once per
    stack it is on) and by their own samples (the leaf of the stack)."""
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    for stack, samples in stacks.items():
        names = [_short(f) for f in stack]
        for name in set(names):
            inclusive[name] += samples
        if names:
            own[names[-1]] += samples
    total = sum(stacks.values())
    return total, inclusive.most_common(count), own.most_common(count)


def summary(stacks: Counter[tuple[str, ...]], count: int = 15) -> str:
    """The top frames as plain text, shares of all samples."""
    total, inclusive, own = top_frames(stacks, count)
    lines = [f"{total:,} samples"]
    for title, rows in (("inclusive", inclusive), ("own (leaf)", own)):
        lines.append(f"top frames, {title}:")
        lines += [f"  {100 * n / max(total, 1):5.1f}%  {name}" for name, n in rows]
    return "\n".join(lines)


@dataclass
class _Node:
    samples: int = 0
    children: dict[str, _Node] = field(default_factory=dict)


def flame_svg(stacks: Counter[tuple[str, ...]], title: str = "server") -> str:
    """A flame graph (root at the bottom, width by samples, each box's name and
    share in its tooltip) as a standalone SVG."""
    root = _Node()
    for stack, samples in stacks.items():
        root.samples += samples
        node = root
        for frame in stack:
            node = node.children.setdefault(_short(frame), _Node())
            node.samples += samples
    width, row = 1600.0, 17
    depth = _depth(root)
    height = (depth + 2) * row
    boxes: list[str] = []

    def draw(node: _Node, name: str, x: float, level: int) -> None:
        w = width * node.samples / max(root.samples, 1)
        if w < 0.3:
            return
        y = height - (level + 1) * row
        share = 100 * node.samples / max(root.samples, 1)
        hue = 20 + zlib.crc32(name.encode()) % 40
        label = html.escape(name if w > 7 * len(name) else name[: max(0, int(w / 7) - 1)])
        boxes.append(
            f"<g><title>{html.escape(name)} ({node.samples:,} samples, {share:.1f}%)</title>"
            f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{row - 1}" '
            f'fill="hsl({hue},85%,60%)"/>'
            f'<text x="{x + 3:.1f}" y="{y + row - 5}">{label}</text></g>'
        )
        for child_name, child in sorted(node.children.items()):
            draw(child, child_name, x, level + 1)
            x += width * child.samples / max(root.samples, 1)

    draw(root, f"all ({title})", 0.0, 0)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height}" '
        f'font-family="monospace" font-size="11">'
        f'<rect width="100%" height="100%" fill="#fff"/>' + "".join(boxes) + "</svg>\n"
    )


def _depth(node: _Node) -> int:
    return 1 + max((_depth(c) for c in node.children.values()), default=0)
