"""Reads the commands out of README.md, so that the README test runs what a reader would copy.

Nothing here knows what the commands are: a row added to the README is run, a row removed is not.
"""
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"

CODE_SPAN = re.compile(r"`([^`]+)`")


def section(title: str, text: str | None = None) -> str:
    """The body of the README section whose heading is exactly `title`, up to the next heading of
    the same or a higher level."""
    text = README.read_text(encoding="utf-8") if text is None else text
    match = re.search(rf"^(#+) {re.escape(title)}\s*$", text, re.MULTILINE)
    if not match:
        raise AssertionError(f"README.md has no section '{title}'")
    level = len(match.group(1))
    rest = text[match.end():]
    # a "# comment" line inside a fenced code block is not a heading
    body, fenced = [], False
    for line in rest.splitlines(keepends=True):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(rf"#{{1,{level}}} ", line):
            break
        body.append(line)
    return "".join(body)


@dataclass(frozen=True)
class Row:
    operation: str
    rest: list[str]  # the commands in the REST column, in order
    grpc: list[str]  # the commands in the gRPC column, in order


def api_table(body: str) -> list[Row]:
    """The rows of the first Markdown table in `body` whose header starts '| operation | REST | gRPC |'."""
    lines = body.splitlines()
    start = next((i for i, line in enumerate(lines)
                  if re.match(r"^\|\s*operation\s*\|\s*REST\s*\|\s*gRPC\s*\|", line)), None)
    if start is None:
        raise AssertionError("no '| operation | REST | gRPC |' table in the section")
    rows = []
    for line in lines[start + 2:]:  # past the header and its |---| line
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in split_cells(line)]
        if len(cells) != 3:
            raise AssertionError(f"a row of the API table does not have 3 cells: {line}")
        rows.append(Row(cells[0], CODE_SPAN.findall(cells[1]), CODE_SPAN.findall(cells[2])))
    return rows


def split_cells(line: str) -> list[str]:
    """The cells of a table row; a '|' inside a code span (none today, but shell pipes may come)
    does not split."""
    cells, current, in_code = [], [], False
    for ch in line.strip()[1:-1]:
        if ch == "`":
            in_code = not in_code
        if ch == "|" and not in_code:
            cells.append("".join(current))
            current = []
        else:
            current.append(ch)
    cells.append("".join(current))
    return cells


def code_blocks(body: str, language: str = "sh") -> list[list[str]]:
    """The fenced ```language blocks of `body`, each as its command lines (comments and blank lines
    dropped, trailing '# ...' comments cut, backslash continuations joined)."""
    blocks = []
    for block in re.findall(rf"^```{language}\n(.*?)^```", body, re.MULTILINE | re.DOTALL):
        commands, pending = [], ""
        for raw in block.splitlines():
            line = pending + raw.strip()
            pending = ""
            if line.endswith("\\"):
                pending = line[:-1] + " "
                continue
            line = strip_comment(line).strip()
            if line:
                commands.append(line)
        blocks.append(commands)
    return blocks


def strip_comment(line: str) -> str:
    """The line without a trailing shell comment (a '#' after white space, outside quotes)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line
