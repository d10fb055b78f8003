"""One self-contained HTML page: the Markdown report's tables, pictures embedded as data URIs,
no scripts, no styles or fonts fetched from anywhere (it reads offline, and from a file)."""

from __future__ import annotations

import base64
import html
import re

from gaa.report.markdown import ESCAPED_CHARS

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em;
       color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: left; }
th { background: #f2f2f2; }
img { max-width: 100%; display: block; margin: 0.5em 0 1.5em; }
code { background: #f5f5f5; padding: 0 0.2em; }
.warning { color: #a00; font-weight: bold; }
td { white-space: nowrap; }
td:last-child, td:nth-child(2) { white-space: normal; }
details { margin: 0.5em 0 1.5em; }
summary { cursor: pointer; color: #444; }
.scroll { overflow-x: auto; }
"""
_IMAGE = re.compile(r"^!\[(.*)\]\((.*)\)$")
_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ESCAPED = re.compile(r"\\([" + re.escape(ESCAPED_CHARS) + "])")
_KEPT = re.compile("\x00(\\d+)\x00")
_LINK = re.compile(r"\[([^\]]+)\]\(#([a-z0-9-]+)\)")
_ANCHOR = re.compile(r'^<a id="([a-z0-9-]+)"></a>$')
_DETAILS = re.compile(r"^<details><summary>([^<>]*)</summary>$")
_NUMBERED = re.compile(r"^\d+\. ")


def _inline(text: str) -> str:
    """One line of the report's Markdown: code spans and bold, with the backslash escapes
    :func:`gaa.report.markdown.escape` writes for text from logs read back as that text."""
    kept: list[str] = []

    def keep(match: re.Match[str]) -> str:
        kept.append(match.group(1))
        return f"\x00{len(kept) - 1}\x00"

    marked = _ESCAPED.sub(keep, text.replace("\x00", ""))
    escaped = html.escape(marked, quote=False)
    escaped = _CODE.sub(r"<code>\1</code>", escaped)
    escaped = _BOLD.sub(r"<strong>\1</strong>", escaped)
    escaped = _LINK.sub(r'<a href="#\2">\1</a>', escaped)
    return _KEPT.sub(lambda match: html.escape(kept[int(match.group(1))]), escaped)


def _cells(line: str) -> list[str]:
    """A table row's cells (a ``\\|`` inside a cell is text, read back by :func:`_inline`)."""
    inner = line.strip()[1:-1]
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", inner)]


def markdown_to_html(markdown: str, title: str, pictures: dict[str, bytes]) -> str:
    """The page for a report written by :mod:`gaa.report.markdown` (its subset of Markdown:
    headings, tables, lists, paragraphs, images); image paths are replaced by the PNG bytes."""
    body: list[str] = []
    lines = markdown.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("|"):
            header = _cells(line)
            index += 2  # the separator line
            rows = []
            while index < len(lines) and lines[index].startswith("|"):
                rows.append(_cells(lines[index]))
                index += 1
            body.append('<div class="scroll"><table><thead><tr>')
            body += [f"<th>{_inline(cell)}</th>" for cell in header]
            body.append("</tr></thead><tbody>")
            for row in rows:
                body.append("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in row) + "</tr>")
            body.append("</tbody></table></div>")
            continue
        image = _IMAGE.match(line)
        anchor = _ANCHOR.match(line)
        details = _DETAILS.match(line)
        if anchor:
            body.append(f'<a id="{anchor.group(1)}"></a>')
        elif details:
            body.append(f"<details><summary>{html.escape(details.group(1))}</summary>")
        elif line == "</details>":
            body.append("</details>")
        elif _NUMBERED.match(line):
            items = []
            while index < len(lines) and _NUMBERED.match(lines[index]):
                items.append(f"<li>{_inline(_NUMBERED.sub('', lines[index], count=1))}</li>")
                index += 1
            body.append("<ol>" + "".join(items) + "</ol>")
            continue
        elif image:
            alt, path = image.groups()
            data = pictures.get(path)
            if data is not None:
                encoded = base64.b64encode(data).decode()
                body.append(f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{encoded}">')
        elif line.startswith("#"):
            level = min(len(line) - len(line.lstrip("#")), 6)
            body.append(f"<h{level}>{_inline(line.lstrip('#').strip())}</h{level}>")
        elif line.startswith("- "):
            items = []
            while index < len(lines) and lines[index].startswith("- "):
                items.append(f"<li>{_inline(lines[index][2:])}</li>")
                index += 1
            body.append("<ul>" + "".join(items) + "</ul>")
            continue
        elif line.startswith("**Warning:**"):
            body.append(f'<p class="warning">{_inline(line)}</p>')
        elif line.strip():
            body.append(f"<p>{_inline(line)}</p>")
        index += 1
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
